package netserve

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// WebSocket is the /ws handler: each binary message is one frame, length
// prefix included (proto.DecodeFrame). After StopAccepting it answers 503.
func (s *Server) WebSocket() http.Handler { return http.HandlerFunc(s.serveWS) }

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	stopping := s.stopping
	s.mu.Unlock()
	if stopping {
		s.refused.Add(1)
		http.Error(w, "world shutting down", http.StatusServiceUnavailable)
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		s.log.Debug("websocket upgrade failed", "addr", r.RemoteAddr, "err", err)
		return // Accept has answered
	}
	c.SetReadLimit(proto.MaxFrame)
	ctx, cancel := context.WithCancel(context.Background())
	t := &wsTransport{c: c, ctx: ctx, cancel: cancel, timeout: s.opts.WriteTimeout}
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

// wsTransport is a game connection over WebSocket.
type wsTransport struct {
	c       *websocket.Conn
	ctx     context.Context // ends with close: unblocks a Read
	cancel  context.CancelFunc
	timeout time.Duration
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

func (t *wsTransport) close() error {
	t.cancel()
	return t.c.CloseNow()
}

// timeoutError is a WebSocket write that missed its deadline, as a
// net.Error so the session counts it as a slow reader.
type timeoutError struct{ err error }

func (e timeoutError) Error() string   { return "websocket write timed out: " + e.err.Error() }
func (e timeoutError) Unwrap() error   { return e.err }
func (e timeoutError) Timeout() bool   { return true }
func (e timeoutError) Temporary() bool { return false }
