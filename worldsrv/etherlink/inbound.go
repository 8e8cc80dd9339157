package etherlink

import (
	"bufio"
	"fmt"

	"github.com/corrosion/corrosion/ether/proto"
)

// Kind is what an Event reports.
type Kind uint8

const (
	// Message: Msg is a frame from the sidecar.
	Message Kind = iota + 1
	// Connected: the link is up and registered (LinkAuth and WorldRegister
	// sent, frames queued for the old connection dropped). The engine
	// answers it with PlayerResync for every online player and RefreshAll.
	Connected
	// Disconnected: the link was lost; Err says why. Until the next
	// Connected, Send returns false.
	Disconnected
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case Message:
		return "message"
	case Connected:
		return "connected"
	case Disconnected:
		return "disconnected"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Event is one item of the inbound queues, in the order the package doc
// gives: the frames of a connection come after its Connected and before
// its Disconnected; a login answer may overtake the other frames of its
// connection, nothing else.
type Event struct {
	Kind Kind
	// Msg (Kind Message) is an ether → world message as a value the event
	// owns (proto.UpdateFriendList, proto.MessagePrivate, ...; never a
	// pointer); its slices are copies, not the read buffer
	// (proto.DecodeOutboundCopy).
	Msg proto.Message
	// Err (Kind Disconnected) is why the link was lost.
	Err error

	gen uint64 // the connection (Stats.Connects when it was made) the event belongs to
}

// drainState is what Drain keeps between calls to hand the two queues over
// in order. Guarded by Client.drainMu.
type drainState struct {
	gen    uint64 // the connection whose Connected was handed over last
	login  *Event // taken from the login queue, not yet handed over (its Connected is still queued)
	marker *Event // a Disconnected taken from the inbound queue, held until its connection's login answers are out
}

// Drain hands at most max queued events to fn and returns how many it
// handed over: login answers first, then the inbound queue oldest first,
// in the order the package doc gives. It never blocks: it stops early when
// both queues are empty. fn runs on the caller's goroutine (the engine's
// tick), with no lock held.
func (c *Client) Drain(max int, fn func(Event)) int {
	n := 0
	for n < max {
		c.drainMu.Lock()
		ev, ok := c.nextLocked()
		c.drainMu.Unlock()
		if !ok {
			return n
		}
		n++
		fn(ev)
	}
	return n
}

// nextLocked takes the event Drain hands over next: a login answer whose
// Connected was handed over; else a held Disconnected; else the oldest of
// the inbound queue. A Disconnected is held while login answers of its
// connection are still queued (they were queued before it).
func (c *Client) nextLocked() (Event, bool) {
	d := &c.drain
	if d.login == nil {
		select {
		case ev := <-c.logins:
			d.login = &ev
		default:
		}
	}
	// l.gen > d.gen: its Connected is still queued. (l.gen < d.gen cannot
	// happen, a connection's answers go before its Disconnected; were it
	// to, the answer is handed over rather than stall the queue.)
	if l := d.login; l != nil && l.gen <= d.gen {
		d.login = nil
		return *l, true
	}
	if m := d.marker; m != nil {
		d.marker = nil
		return *m, true
	}
	select {
	case ev := <-c.in:
		switch ev.Kind {
		case Connected:
			d.gen = ev.gen
		case Disconnected:
			d.marker = &ev
			return c.nextLocked() // the marker, or first a login answer queued before it
		}
		return ev, true
	default:
		return Event{}, false
	}
}

// queued counts the events waiting for Drain, held ones included.
func (c *Client) queued() int {
	c.drainMu.Lock()
	defer c.drainMu.Unlock()
	n := len(c.in) + len(c.logins)
	if c.drain.login != nil {
		n++
	}
	if c.drain.marker != nil {
		n++
	}
	return n
}

// deliver puts ev on its queue (a login answer on the login queue, anything
// else on the inbound queue), waiting while it is full — the
// back-pressure that stops the reader, so the sidecar's link buffers what
// the engine has not drained — until stop ends. It reports whether ev was
// queued.
func (c *Client) deliver(ev Event, stop <-chan struct{}) bool {
	q := c.in
	if loginAnswer(ev.Msg) {
		q = c.logins
	}
	select {
	case q <- ev:
		return true
	default:
	}
	c.tellFlush() // a Flush drains the queues: the engine no longer does
	select {
	case q <- ev:
		return true
	case <-stop:
		return false
	}
}

// readLoop reads frames from cn through r until the connection ends, and
// queues each decoded one as a Message event. A frame that does not decode is counted and logged (rate-limited); the connection
// stays. It returns the read error that ended the connection.
func (c *Client) readLoop(cn *conn, r *bufio.Reader) error {
	buf := make([]byte, 0, proto.MaxPayload)
	for {
		var err error
		if buf, err = proto.ReadFrame(r, buf); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		msg, err := proto.DecodeOutboundCopy(buf) // a value of its own: it outlives buf in the queue
		if err != nil {
			c.stats.malformed.Add(1)
			c.badFrame.log(c.log, "drop a frame from the sidecar that does not decode", "err", err,
				"malformed_total", c.stats.malformed.Load())
			continue
		}
		if msg.Op() == proto.OpPlayerSaveAck {
			c.stats.unacked.Add(-1)
			c.tellFlush()
		}
		if !c.deliver(Event{Kind: Message, Msg: msg, gen: cn.gen}, cn.done) {
			return cn.cause()
		}
		c.stats.received.Add(1)
	}
}

// loginAnswer reports whether m answers a login a player is waiting for:
// LoginCheckResponse, then PlayerLoadResponse (the engine's pending-login
// limit covers both).
func loginAnswer(m proto.Message) bool {
	switch m.(type) {
	case proto.LoginCheckResponse, proto.PlayerLoadResponse:
		return true
	}
	return false
}
