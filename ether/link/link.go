// Package link is the TCP link between an ether node and its world server:
// a listener on 127.0.0.1 that serves one world connection at a time (a new
// connection replaces the old one), reading frames with the proto codec and
// writing the node's frames back. With a link token configured, a new
// connection must present it (LinkAuth) as its first frame before it may
// replace anything.
package link

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
)

// Handler receives what the world sends.
type Handler interface {
	// HandleFrame takes one decoded inbound frame, on the read goroutine.
	// msg aliases the read buffer: it is valid only during the call.
	HandleFrame(msg proto.Message)
	// WorldUp and WorldDown report the link's state. A replaced connection
	// reports WorldDown, then WorldUp for the new one. A lost connection's
	// WorldDown returns before a reconnect's WorldUp and frames.
	WorldUp()
	WorldDown()
}

// Config configures a Server. New keeps a copy, immutable from then on.
type Config struct {
	Addr       string // listen address, e.g. 127.0.0.1:5010
	MaxPending int    // outbound bytes buffered for a slow world; default 16 MiB (newest dropped beyond)

	// Token is the link token (RS_LINK_TOKEN). When set, a connection's
	// first frame must be a LinkAuth carrying it, within AuthTimeout, or
	// the connection is closed and the current world keeps the link. Empty:
	// no token, the seed's behaviour (a LinkAuth is then ignored).
	Token       []byte
	AuthTimeout time.Duration // how long a new connection has to present the token; default 5s
}

// Server is the world link. Teardown (Run's context ending): close the
// listener, end the authentications under way, close the connection, then
// wait for the read and write loops and the authentications. Lock order:
// attachMu before mu.
type Server struct {
	cfg Config       // immutable after New
	h   Handler      // immutable after New
	log *slog.Logger // immutable after New
	ln  net.Listener // immutable after New; closed by Run's teardown or Close

	// attachMu is held through attach and through detach's WorldDown, so
	// the handler sees each connection's WorldDown before the next one's
	// WorldUp and frames.
	attachMu sync.Mutex

	mu      sync.Mutex // guards conn and stopped
	conn    *conn      // guarded by mu; the current world connection, nil when none
	stopped bool       // guarded by mu; set by Run's teardown, after which attach refuses

	// Totals since New, for Stats: atomic, no lock.
	framesIn, framesOut, dropped, malformed, refused atomic.Uint64

	wg sync.WaitGroup // no lock (a WaitGroup); counts every connection's read and write loops, and authentications
}

// New listens on cfg.Addr.
func New(cfg Config, h Handler, log *slog.Logger) (*Server, error) {
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = 16 << 20
	}
	if cfg.AuthTimeout <= 0 {
		cfg.AuthTimeout = 5 * time.Second
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen for the world on %s: %w", cfg.Addr, err)
	}
	return &Server{cfg: cfg, h: h, log: log, ln: ln}, nil
}

// Close stops listening; for a Server whose Run was never called.
func (s *Server) Close() error { return s.ln.Close() }

// Addr is the address the link listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Run accepts world connections until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { s.ln.Close() })
	defer stop()
	err := s.acceptLoop(ctx)
	cancel() // ends the authentications under way
	s.ln.Close()
	s.shutdown()
	s.wg.Wait()
	return err
}

// acceptLoop accepts connections until ctx ends (nil) or the listener
// fails (the error).
func (s *Server) acceptLoop(ctx context.Context) error {
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("accept world connection: %w", err)
		}
		r := bufio.NewReaderSize(nc, 64<<10)
		if len(s.cfg.Token) == 0 {
			s.attach(nc, r)
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if s.authenticate(ctx, nc, r) {
				s.attach(nc, r)
			}
		}()
	}
}

// attach makes nc, read through r, the world connection, replacing (and
// closing) any previous one: a world that reconnects must not be locked
// out by a half-dead old socket. After Run's teardown it closes nc instead.
func (s *Server) attach(nc net.Conn, r *bufio.Reader) {
	s.attachMu.Lock()
	defer s.attachMu.Unlock()
	c := newConn(nc, s.cfg.MaxPending)
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		nc.Close()
		return
	}
	old := s.conn
	s.conn = c
	s.mu.Unlock()
	if old != nil {
		s.log.Warn("a new world connection replaces the current one", "old", old.nc.RemoteAddr(), "new", nc.RemoteAddr())
		old.close()
		s.h.WorldDown()
	} else {
		s.log.Info("world connected", "remote", nc.RemoteAddr())
	}
	s.h.WorldUp()
	s.wg.Add(2)
	go func() { defer s.wg.Done(); c.writeLoop(s) }()
	go func() { defer s.wg.Done(); s.readLoop(c, r) }()
}

// shutdown closes the current connection and makes attach refuse from now on.
func (s *Server) shutdown() {
	s.mu.Lock()
	c := s.conn
	s.conn = nil
	s.stopped = true
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
}

// readLoop decodes frames from r, c's reader, until the connection ends.
// Bad frames (empty, unknown opcode, wrong length) are logged and dropped;
// the connection stays open. LinkAuth and LinkChallenge are not the
// sessions' business: after authentication, or with no token configured,
// they are ignored (so an ether without a token proves nothing).
func (s *Server) readLoop(c *conn, r *bufio.Reader) {
	buf := make([]byte, 0, 1024)
	var dec proto.Decoder
	var lastWarn time.Time
	for {
		payload, err := proto.ReadFrame(r, buf)
		if err != nil {
			s.cutShort(err)
			s.detach(c, err)
			return
		}
		buf = payload[:0]
		s.framesIn.Add(1)
		msg, err := dec.DecodeInbound(payload)
		if err != nil {
			s.malformed.Add(1)
			if time.Since(lastWarn) > time.Second {
				lastWarn = time.Now()
				s.log.Warn("dropping a bad frame from the world", "len", len(payload), "err", err, "bad_total", s.malformed.Load())
			}
			continue
		}
		if op := msg.Op(); op == proto.OpLinkAuth || op == proto.OpLinkChallenge {
			continue
		}
		s.h.HandleFrame(msg)
	}
}

// cutShort counts the frame a read error cut short (the stream ended
// inside it: io.ErrUnexpectedEOF) as read and malformed: it is dropped like
// any frame that does not decode.
func (s *Server) cutShort(err error) {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		s.framesIn.Add(1)
		s.malformed.Add(1)
	}
}

// detach forgets c after its read side ended. It holds attachMu until
// WorldDown has returned: a world reconnecting meanwhile waits in attach,
// so its WorldUp and its frames (a PlayerResync) cannot come before this
// WorldDown, which would orphan the sessions they just resynced.
func (s *Server) detach(c *conn, err error) {
	s.attachMu.Lock()
	defer s.attachMu.Unlock()
	s.mu.Lock()
	current := s.conn == c
	if current {
		s.conn = nil
	}
	s.mu.Unlock()
	c.close()
	if !current {
		return // replaced, or shutting down
	}
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		s.log.Info("world disconnected", "remote", c.nc.RemoteAddr())
	} else {
		s.log.Warn("world connection lost", "remote", c.nc.RemoteAddr(), "err", err)
	}
	s.h.WorldDown()
}

// Send queues a frame for the world. It reports false when the frame was
// dropped: no world is connected, or the world is not reading.
func (s *Server) Send(m proto.Message) bool {
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil || !c.enqueue(m) {
		s.dropped.Add(1)
		return false
	}
	s.framesOut.Add(1)
	return true
}

// Up reports whether a world is connected.
func (s *Server) Up() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn != nil
}

// Stats are the link's totals: a snapshot, the caller's own copy.
type Stats struct {
	FramesIn  uint64 // frames read from the world, bad ones included
	FramesOut uint64 // frames queued for the world
	Dropped   uint64 // frames not queued: no world connected, or it was not reading
	Malformed uint64 // frames read but not decoded, first frames included, or cut short by the end of the stream (dropped)
	Refused   uint64 // connections closed for want of the link token
}

// Stats returns the link's totals since New.
func (s *Server) Stats() Stats {
	return Stats{
		FramesIn: s.framesIn.Load(), FramesOut: s.framesOut.Load(), Dropped: s.dropped.Load(),
		Malformed: s.malformed.Load(), Refused: s.refused.Load(),
	}
}
