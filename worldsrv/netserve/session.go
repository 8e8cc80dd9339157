package netserve

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"

	"github.com/corrosion/corrosion/worldsrv/engine"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// transport is one connection's framing: TCP (a stream of frames) or
// WebSocket (a frame per message).
type transport interface {
	// readPayload reads the next frame's payload, into buf when it fits.
	readPayload(buf []byte) ([]byte, error)
	// writeChunk writes one tick's frames within the write timeout.
	writeChunk(chunk []byte) error
	// end ends the connection for why: WebSocket sends its close frame
	// and waits at most closeHandshakeWait for the peer's before closing;
	// TCP closes. A close during an end cuts it short.
	end(why closeReason) error
	// close closes the connection at once, also during an end; safe to
	// call more than once and from any goroutine, it never waits on the
	// peer.
	close() error
}

// errBadMessage marks a read that was not a frame (a WebSocket text
// message, say): the connection closes as for a malformed frame.
var errBadMessage = errors.New("netserve: not a binary frame")

// session is one client connection: the engine's Conn.
type session struct {
	srv    *Server
	t      transport
	addr   string         // the peer's address without port
	client *engine.Client // set before the reader and writer start

	closeOnce sync.Once
	closed    chan struct{} // closed by Close and end: the writer stops

	// why is the closeReason the reader found for the writer's end once
	// the engine is done with the client (flooding, a first frame not
	// Login); closeNormal until then.
	why atomic.Uint32
}

var _ engine.Conn = (*session)(nil)

func newSession(s *Server, t transport, addr string) *session {
	return &session{srv: s, t: t, addr: addr, closed: make(chan struct{})}
}

// RemoteAddr is the peer's address without port.
func (ss *session) RemoteAddr() string { return ss.addr }

// Close closes the connection at once, without a close frame; any
// goroutine (the engine's tick for a slow reader), any number of times,
// never waiting on the peer.
func (ss *session) Close() error {
	ss.markClosed()
	return ss.t.close()
}

// end ends the connection for why (a WebSocket close frame, then a wait
// bounded by closeHandshakeWait); it runs on the reader or the writer.
func (ss *session) end(why closeReason) {
	ss.markClosed()
	_ = ss.t.end(why)
}

func (ss *session) markClosed() { ss.closeOnce.Do(func() { close(ss.closed) }) }

// doneReason is why the writer ends the connection once the engine is done
// with the client.
func (ss *session) doneReason() closeReason {
	if why := closeReason(ss.why.Load()); why != closeNormal {
		return why
	}
	if ss.srv.isStopping() {
		return closeShutdown
	}
	return closeNormal
}

// serve runs the session on the calling goroutine until both its reader
// and its writer are done. The caller has tracked it.
func (ss *session) serve() {
	defer ss.srv.untrack(ss)
	defer ss.Close()
	c, err := ss.srv.opts.Engine.Attach(ss)
	if err != nil {
		ss.srv.busy.Add(1)
		ss.srv.log.Warn("connection refused: the engine's accept queue is full", "addr", ss.addr)
		ss.end(closeBusy)
		return
	}
	ss.client = c
	wrote := make(chan struct{})
	go func() { defer close(wrote); ss.writeLoop() }()
	ss.readLoop()
	<-wrote
}

// readLoop hands each frame to the engine until the connection ends, a
// frame is bad, or the engine refuses one (a full queue: it hangs up).
func (ss *session) readLoop() {
	var buf []byte
	for first := true; ; first = false {
		p, err := ss.t.readPayload(buf)
		if err != nil {
			ss.client.Hangup()
			if why, bad := badFrameReason(err); bad {
				ss.bad(why, err)
			}
			return
		}
		// DecodeClient, not a Decoder: the message crosses to the tick
		// goroutine, so it must own its strings.
		m, err := proto.DecodeClient(p)
		if err != nil {
			ss.client.Hangup()
			ss.bad(closeProtocol, err)
			return
		}
		if _, login := m.(*proto.Login); first && !login {
			ss.why.Store(uint32(closeProtocol)) // the engine ends it
		}
		if !ss.client.Deliver(m) {
			ss.why.Store(uint32(closePolicy))
			ss.srv.log.Warn("client flooding: disconnected", "addr", ss.addr)
			return
		}
		buf = p
	}
}

// bad ends the connection for a frame it should not have sent.
func (ss *session) bad(why closeReason, err error) {
	ss.srv.badFrames.Add(1)
	ss.srv.log.Info("bad frame: connection closed", "addr", ss.addr, "err", err)
	ss.end(why)
}

// writeLoop writes the engine's chunks in order, woken after each tick
// (Client.Ready: the tick only queues them); once the engine is done with
// the client it writes what is still queued and ends the connection (its
// close frame). A failed write has closed it already.
func (ss *session) writeLoop() {
	out, done := ss.client.Outbound(), ss.client.Done()
	for {
		ready := ss.client.Ready() // before looking at out: no wake-up is missed
		if !ss.writeQueued(out) {
			return
		}
		select {
		case <-ready:
		case <-done:
			if ss.writeQueued(out) {
				ss.end(ss.doneReason())
			}
			return
		case <-ss.closed:
			ss.client.Hangup()
			return
		}
	}
}

// writeQueued writes the chunks out holds now, handing each back to the
// engine; false when the connection failed.
func (ss *session) writeQueued(out <-chan []byte) bool {
	for {
		select {
		case chunk := <-out:
			if !ss.write(chunk) {
				return false
			}
			ss.client.Recycle(chunk)
		default:
			return true
		}
	}
}

func (ss *session) write(chunk []byte) bool {
	err := ss.t.writeChunk(chunk)
	if err == nil {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		ss.srv.slowWrites.Add(1)
		ss.srv.log.Warn("client too slow to read: disconnected", "addr", ss.addr)
	} else if !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF) {
		ss.srv.log.Debug("write to client failed", "addr", ss.addr, "err", err)
	}
	select {
	case <-ss.closed: // closed, or the reader is ending it: leave its close frame be
	default:
		_ = ss.Close()
	}
	ss.client.Hangup()
	return false
}
