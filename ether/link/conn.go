package link

import (
	"net"
	"sync"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
)

// conn is one world connection. Frames are encoded into a pending buffer
// by any goroutine and written by one writer, which swaps buffers so that
// a burst of frames goes out in few writes.
type conn struct {
	nc         net.Conn // immutable after newConn; safe for concurrent use (readLoop reads, writeLoop writes, close closes)
	maxPending int      // immutable after newConn

	mu      sync.Mutex    // guards pending and closed
	pending []byte        // guarded by mu; encoded frames not yet written
	closed  bool          // guarded by mu; set once by close, then enqueue refuses
	wake    chan struct{} // immutable after newConn (a channel: no lock); capacity 1, a send means pending may hold frames
	done    chan struct{} // immutable after newConn (a channel: no lock); closed by close
	once    sync.Once     // no lock; makes close idempotent
}

func newConn(nc net.Conn, maxPending int) *conn {
	return &conn{nc: nc, maxPending: maxPending, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (c *conn) enqueue(m proto.Message) bool {
	c.mu.Lock()
	if c.closed || len(c.pending) >= c.maxPending {
		c.mu.Unlock()
		return false
	}
	b, err := proto.AppendFrame(c.pending, m)
	if err != nil {
		c.mu.Unlock()
		return false
	}
	c.pending = b
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return true
}

func (c *conn) writeLoop(s *Server) {
	var out []byte
	for {
		select {
		case <-c.done:
			return
		case <-c.wake:
		}
		c.mu.Lock()
		out, c.pending = c.pending, out[:0]
		c.mu.Unlock()
		if len(out) == 0 {
			continue
		}
		_ = c.nc.SetWriteDeadline(time.Now().Add(30 * time.Second))
		if _, err := c.nc.Write(out); err != nil {
			s.log.Warn("writing to the world failed; closing the connection", "err", err)
			c.close()
			return
		}
	}
}

func (c *conn) close() {
	c.once.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		close(c.done)
		c.nc.Close()
	})
}
