package etherlink

import (
	"bufio"
	"fmt"
	"slices"

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

// Event is one item of the inbound queue, in the order it happened: the
// frames of a connection come after its Connected and before its
// Disconnected.
type Event struct {
	Kind Kind
	// Msg (Kind Message) is an ether → world message as a value the event
	// owns (proto.UpdateFriendList, proto.MessagePrivate, ...; never a
	// pointer); its slices are copies, not the read buffer.
	Msg proto.Message
	// Err (Kind Disconnected) is why the link was lost.
	Err error
}

// Drain hands at most max queued events to fn, oldest first, and returns
// how many it handed over. It never blocks: it stops early when the queue
// is empty. fn runs on the caller's goroutine (the engine's tick).
func (c *Client) Drain(max int, fn func(Event)) int {
	n := 0
	for n < max {
		select {
		case ev := <-c.in:
			n++
			fn(ev)
		default:
			return n
		}
	}
	return n
}

// deliver puts ev on the inbound queue, waiting while it is full — the
// back-pressure that stops the reader, so the sidecar's link buffers what
// the engine has not drained — until stop ends. It reports whether ev was
// queued.
func (c *Client) deliver(ev Event, stop <-chan struct{}) bool {
	select {
	case c.in <- ev:
		return true
	default:
	}
	select {
	case c.in <- ev:
		return true
	case <-stop:
		return false
	}
}

// readLoop reads frames from cn through r until the connection ends, and queues each decoded one as a Message event. A frame that
// does not decode is counted and logged (rate-limited); the connection
// stays. It returns the read error that ended the connection.
func (c *Client) readLoop(cn *conn, r *bufio.Reader) error {
	buf := make([]byte, 0, proto.MaxPayload)
	var dec proto.Decoder
	for {
		var err error
		if buf, err = proto.ReadFrame(r, buf); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		msg, err := dec.DecodeOutbound(buf)
		if err != nil {
			c.stats.malformed.Add(1)
			c.badFrame.log(c.log, "drop a frame from the sidecar that does not decode", "err", err,
				"malformed_total", c.stats.malformed.Load())
			continue
		}
		owned, ok := own(msg)
		if !ok {
			c.stats.malformed.Add(1)
			c.badFrame.log(c.log, "drop a frame from the sidecar that etherlink cannot copy", "op", msg.Op())
			continue
		}
		if !c.deliver(Event{Kind: Message, Msg: owned}, cn.done) {
			return cn.cause()
		}
		c.stats.received.Add(1)
	}
}

// own copies a message decoded into a Decoder's storage (whose slices alias
// the read buffer) into a value of its own. It reports false for a type it
// does not know (an outbound message added to ether/proto but not here).
func own(m proto.Message) (proto.Message, bool) {
	switch m := m.(type) {
	case *proto.UpdateFriendList:
		return *m, true
	case *proto.UpdateIgnoreList:
		return proto.UpdateIgnoreList{Target37: m.Target37, Ignores: slices.Clone(m.Ignores)}, true
	case *proto.MessagePrivate:
		v := *m
		v.Body = slices.Clone(m.Body)
		return v, true
	case *proto.FriendListComplete:
		return *m, true
	case *proto.PlayerLoadResponse:
		return proto.PlayerLoadResponse{User37: m.User37, SaveData: slices.Clone(m.SaveData)}, true
	case *proto.PlayerSaveAck:
		return *m, true
	case *proto.LoginCheckResponse:
		return *m, true
	}
	return nil, false
}
