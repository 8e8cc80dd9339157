package engine

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/internal/peerkey"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// ErrBusy is Attach's error when the accept queue is full.
var ErrBusy = errors.New("engine: too many connections waiting to be admitted")

// Conn is the network layer's side of one client connection (TCP or
// WebSocket). The network layer reads frames and hands the decoded messages
// to Client.Deliver, writes each chunk from Client.Outbound (handing it
// back with Client.Recycle once written, so the tick reuses it), and when
// Client.Done is closed writes what is still queued and closes the socket.
type Conn interface {
	// RemoteAddr is the peer's address without port (the per-address
	// connection bound counts its peerkey: an IPv6 host by its /64).
	RemoteAddr() string
	// Close closes the connection at once, unblocking its writer; the
	// engine calls it for a slow reader. It must be safe to call from any
	// goroutine and more than once.
	Close() error
}

// clientState is where a connection is in its life.
type clientState uint8

const (
	stateNew     clientState = iota // waiting for its Login frame
	stateQueued                     // its Login waits for an account check slot (MaxAuthInFlight)
	stateAuthing                    // account check running
	statePending                    // waiting for ether (LoginCheck, load)
	statePlaying                    // a player
	stateClosing                    // answered; released in cleanup
)

// Client is one connection as the engine sees it.
type Client struct {
	conn   Conn                     // immutable after Attach
	addr   string                   // immutable after Attach
	peer   string                   // immutable after Attach; peerkey.Of(addr), what MaxPerAddress counts
	wake   *wakeup                  // immutable after Attach; the engine's (Ready)
	in     chan proto.ClientMessage // network → tick; bounded (InQueue)
	out    chan []byte              // tick → network; bounded (OutQueue)
	free   chan []byte              // network → tick: written chunks to reuse (Recycle); bounded
	done   chan struct{}            // closed by the tick when released
	hangup chan struct{}            // closed by Hangup
	once   sync.Once                // guards closing hangup
	flood  atomic.Bool              // Deliver found the queue full

	// Owned by the tick goroutine.
	state     clientState
	buf       []byte        // this tick's frames, handed over in outputs
	bufHint   int           // the size of the last chunk handed over: the next one starts with this capacity
	player    *player       // set while statePlaying
	early     *pendingLogin // its early pending login, while its password is verified (startEarly)
	lastHeard time.Time
	overLimit bool // its address has more than MaxPerAddress connections
}

// Deliver queues a message the client sent, for the next tick's inputs. It
// never blocks: a full queue (a client flooding) hangs the client up and
// returns false, and the network layer should then stop reading.
func (c *Client) Deliver(m proto.ClientMessage) bool {
	select {
	case c.in <- m:
		return true
	default:
		c.flood.Store(true)
		c.Hangup()
		return false
	}
}

// Hangup tells the engine the connection is gone (read error, EOF, bad
// frame). A player is then saved and removed as on a logout. Safe to call
// from any goroutine, more than once.
func (c *Client) Hangup() { c.once.Do(func() { close(c.hangup) }) }

// Outbound is the channel of frame chunks to write, in order. A writer
// does not wait on it: the tick fills it without waking anyone, and Ready
// says when to read it (see Ready).
func (c *Client) Outbound() <-chan []byte { return c.out }

// Ready returns a channel closed when a tick that handed chunks to the
// writers has ended. A writer takes Ready first, then writes what
// Outbound holds, then waits for the channel it took (or Done): a chunk
// queued after it looked is announced on that channel, so none waits a
// tick. The tick itself never wakes a writer: all are woken at once after
// its phases, so 2,000 writers do not compete with the tick for the CPU
// while it runs. Safe from any goroutine.
func (c *Client) Ready() <-chan struct{} { return c.wake.current() }

// wakeup is the engine's broadcast to the writers: a channel closed (and
// replaced) after each tick that queued a chunk.
type wakeup struct {
	ch atomic.Pointer[chan struct{}] // the channel the next release closes
}

func newWakeup() *wakeup {
	w := &wakeup{}
	ch := make(chan struct{})
	w.ch.Store(&ch)
	return w
}

func (w *wakeup) current() <-chan struct{} { return *w.ch.Load() }

// release wakes every writer waiting on the current channel.
func (w *wakeup) release() {
	next := make(chan struct{})
	close(*w.ch.Swap(&next))
}

// recycled is how many written chunks a client keeps for reuse.
const recycled = 2

// Recycle hands back a chunk from Outbound once it is written, so a later
// tick builds the client's frames in it instead of a new allocation. The
// caller must not touch chunk afterwards. Optional (a chunk never handed
// back is garbage collected); never blocks; safe from any goroutine.
func (c *Client) Recycle(chunk []byte) {
	select {
	case c.free <- chunk[:0]:
	default:
	}
}

// Done is closed when the engine is finished with the client: write what
// Outbound still holds, then close the connection.
func (c *Client) Done() <-chan struct{} { return c.done }

func (c *Client) hungUp() bool {
	select {
	case <-c.hangup:
		return true
	default:
		return false
	}
}

// Attach hands a new connection to the engine; the next tick admits it.
// It never blocks: a full accept queue is ErrBusy.
func (e *Engine) Attach(conn Conn) (*Client, error) {
	addr := conn.RemoteAddr()
	c := &Client{conn: conn, addr: addr, peer: peerkey.Of(addr), wake: e.wake,
		in: make(chan proto.ClientMessage, e.cfg.InQueue), out: make(chan []byte, e.cfg.OutQueue),
		free: make(chan []byte, recycled),
		done: make(chan struct{}), hangup: make(chan struct{})}
	select {
	case e.accepts <- c:
		return c, nil
	default:
		e.counters.acceptBusy.Add(1)
		return nil, ErrBusy
	}
}

// maxBufHint caps the capacity a client's next chunk starts with (a full
// Nearby is about 3.6 KB).
const maxBufHint = 8 << 10

// send appends one frame for c to this tick's chunk.
func (e *Engine) send(c *Client, m proto.Message) {
	if c.buf == nil {
		select {
		case c.buf = <-c.free:
		default:
			if c.bufHint > 0 {
				c.buf = make([]byte, 0, c.bufHint)
			}
		}
	}
	b, err := proto.AppendFrame(c.buf, m)
	if err != nil {
		e.log.Error("encode client frame", "err", err)
		return
	}
	c.buf = b
}

// answer sends a refusing LoginResponse and ends the connection.
func (e *Engine) answer(c *Client, code proto.LoginCode) {
	e.send(c, proto.LoginResponse{Code: code})
	e.counters.logins[code].Add(1)
	c.state = stateClosing
}

// flush hands c's chunk to its writer; a full queue is a slow reader.
func (e *Engine) flush(c *Client) {
	if len(c.buf) == 0 {
		return
	}
	c.bufHint = min(len(c.buf), maxBufHint)
	select {
	case c.out <- c.buf:
		c.buf = nil
		e.handed = true
	default:
		c.buf = nil
		e.counters.slow.Add(1)
		e.log.Warn("client too slow to read: disconnected", "addr", c.addr)
		_ = c.conn.Close()
		c.Hangup()
	}
}
