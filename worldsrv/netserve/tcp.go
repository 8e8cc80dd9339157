package netserve

import (
	"bufio"
	"errors"
	"net"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// acceptBackoff spaces Accept retries after a temporary error (out of file
// descriptors, say).
const acceptBackoff = 50 * time.Millisecond

// ServeTCP accepts game connections on ln until StopAccepting or Close;
// then it returns nil. Accepting never waits for the tick.
func (s *Server) ServeTCP(ln net.Listener) error {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		_ = ln.Close()
		return nil
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	for {
		nc, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		if err != nil {
			s.log.Warn("accept failed", "err", err)
			time.Sleep(acceptBackoff)
			continue
		}
		s.startTCP(nc)
	}
}

func (s *Server) startTCP(nc net.Conn) {
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
		if s.opts.SendBuffer > 0 {
			_ = tc.SetWriteBuffer(s.opts.SendBuffer)
		}
	}
	ss := newSession(s, &tcpTransport{nc: nc, r: bufio.NewReader(nc), timeout: s.opts.WriteTimeout}, hostOf(nc.RemoteAddr()))
	if !s.track(ss) {
		_ = nc.Close()
		return
	}
	go ss.serve()
}

// hostOf is addr's host without port.
func hostOf(addr net.Addr) string {
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

// tcpTransport is a game connection on the game port.
type tcpTransport struct {
	nc      net.Conn
	r       *bufio.Reader
	timeout time.Duration
}

func (t *tcpTransport) readPayload(buf []byte) ([]byte, error) { return proto.ReadFrame(t.r, buf) }

func (t *tcpTransport) writeChunk(chunk []byte) error {
	if err := t.nc.SetWriteDeadline(time.Now().Add(t.timeout)); err != nil {
		return err
	}
	_, err := t.nc.Write(chunk)
	return err
}

// end closes: the game port has no close frame (the Logout frame before
// it tells a clean end).
func (t *tcpTransport) end(closeReason) error { return t.nc.Close() }

func (t *tcpTransport) close() error { return t.nc.Close() }
