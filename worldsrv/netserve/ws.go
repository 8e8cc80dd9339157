package netserve

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// WebSocket is the /ws handler: each binary message is one frame, length
// prefix included (proto.DecodeFrame). After StopAccepting it answers 503.
func (s *Server) WebSocket() http.Handler { return http.HandlerFunc(s.serveWS) }

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if s.isStopping() {
		s.refused.Add(1)
		http.Error(w, "world shutting down", http.StatusServiceUnavailable)
		return
	}
	rec := &hijackRecorder{ResponseWriter: w}
	c, err := websocket.Accept(rec, r, nil)
	if err != nil {
		s.log.Debug("websocket upgrade failed", "addr", r.RemoteAddr, "err", err)
		return // Accept has answered
	}
	if rec.nc == nil { // Accept found another Hijacker than rec: never so for net/http
		s.log.Error("websocket upgrade did not go through the hijack recorder", "addr", r.RemoteAddr)
		_ = c.CloseNow()
		return
	}
	c.SetReadLimit(proto.MaxFrame)
	ctx, cancel := context.WithCancel(context.Background())
	t := &wsTransport{c: c, nc: rec.nc, ctx: ctx, cancel: cancel, timeout: s.opts.WriteTimeout}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ss := newSession(s, t, host)
	if !s.track(ss) {
		_ = t.close()
		return
	}
	ss.serve()
}

// hijackRecorder keeps the socket websocket.Accept hijacks: closing it is
// what bounds a close handshake (the library waits up to 5 s for each half).
type hijackRecorder struct {
	http.ResponseWriter
	nc net.Conn // set by Hijack, during Accept
}

func (h *hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	h.nc = nc
	return nc, brw, err
}

func (h *hijackRecorder) Unwrap() http.ResponseWriter { return h.ResponseWriter }

// wsTransport is a game connection over WebSocket.
type wsTransport struct {
	c       *websocket.Conn // immutable after serveWS
	nc      net.Conn        // immutable after serveWS; the hijacked socket under c
	ctx     context.Context // ends with close: unblocks a Read
	cancel  context.CancelFunc
	timeout time.Duration
	ended   atomic.Bool // the first of end and close has taken c's closing
}

func (t *wsTransport) readPayload([]byte) ([]byte, error) {
	typ, msg, err := t.c.Read(t.ctx)
	if err != nil {
		return nil, err
	}
	if typ != websocket.MessageBinary {
		return nil, fmt.Errorf("%w: a text message", errBadMessage)
	}
	return proto.DecodeFrame(msg)
}

// writeChunk splits a tick's chunk into its frames, one message each.
func (t *wsTransport) writeChunk(chunk []byte) error {
	ctx, cancel := context.WithTimeout(t.ctx, t.timeout)
	defer cancel()
	for len(chunk) >= proto.HeaderLen {
		n := proto.HeaderLen + int(binary.BigEndian.Uint16(chunk))
		if n > len(chunk) {
			return fmt.Errorf("netserve: chunk ends inside a frame")
		}
		if err := t.c.Write(ctx, websocket.MessageBinary, chunk[:n]); err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				return timeoutError{err}
			}
			return err
		}
		chunk = chunk[n:]
	}
	return nil
}

// end sends why's close frame and waits for the peer's; a peer that has
// not answered within closeHandshakeWait has its socket closed under the
// handshake, which then ends at once.
func (t *wsTransport) end(why closeReason) error {
	if !t.ended.CompareAndSwap(false, true) {
		return nil
	}
	defer t.cancel()
	bound := time.AfterFunc(closeHandshakeWait, func() { _ = t.nc.Close() })
	defer bound.Stop()
	f := closeFrames[why]
	return t.c.Close(f.code, f.text)
}

// close closes the socket, which also cuts an end short; it never waits
// on the peer.
func (t *wsTransport) close() error {
	t.cancel()
	err := t.nc.Close()
	if t.ended.CompareAndSwap(false, true) {
		return t.c.CloseNow()
	}
	return err
}

// timeoutError is a WebSocket write that missed its deadline, as a
// net.Error so the session counts it as a slow reader.
type timeoutError struct{ err error }

func (e timeoutError) Error() string   { return "websocket write timed out: " + e.err.Error() }
func (e timeoutError) Unwrap() error   { return e.err }
func (e timeoutError) Timeout() bool   { return true }
func (e timeoutError) Temporary() bool { return false }
