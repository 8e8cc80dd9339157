package netserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/worldsrv/engine"
)

// DefaultWriteTimeout bounds one write to a client when Options leaves it 0.
const DefaultWriteTimeout = 10 * time.Second

// Attacher is the engine as the listeners see it; *engine.Engine is one.
type Attacher interface {
	Attach(conn engine.Conn) (*engine.Client, error)
}

var _ Attacher = (*engine.Engine)(nil)

// Options configures a Server.
type Options struct {
	Engine Attacher     // required
	Logger *slog.Logger // nil: discard
	// WriteTimeout bounds each write of a chunk to a client; a client that
	// does not read within it is disconnected. Default 10 s.
	WriteTimeout time.Duration
	// SendBuffer sets SO_SNDBUF of each TCP game connection (bytes); 0:
	// the system's. A small buffer bounds kernel memory per client and
	// finds slow readers sooner.
	SendBuffer int
}

// Stats counts the listeners' work since New.
type Stats struct {
	Accepted   uint64 // connections accepted (TCP and WebSocket)
	Open       int    // connections open now
	Busy       uint64 // refused: the engine's accept queue was full
	BadFrames  uint64 // closed for an oversized or malformed frame
	SlowWrites uint64 // closed for a write that missed its deadline
	Refused    uint64 // arrived after StopAccepting
}

// Server serves game connections to one engine.
type Server struct {
	opts Options      // immutable after New, defaults applied
	log  *slog.Logger // immutable after New

	mu        sync.Mutex
	stopping  bool                      // guarded by mu: StopAccepting was called
	listeners map[net.Listener]struct{} // guarded by mu
	sessions  map[*session]struct{}     // guarded by mu
	wg        sync.WaitGroup            // one per session

	accepted, busy, badFrames, slowWrites, refused atomic.Uint64
}

// ErrOptions marks missing Options.
var ErrOptions = errors.New("netserve: missing option")

// New makes a Server; ServeTCP and WebSocket serve through it.
func New(o Options) (*Server, error) {
	if o.Engine == nil {
		return nil, fmt.Errorf("%w: Engine", ErrOptions)
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Server{opts: o, log: o.Logger.With("component", "netserve"),
		listeners: map[net.Listener]struct{}{}, sessions: map[*session]struct{}{}}, nil
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	open := len(s.sessions)
	s.mu.Unlock()
	return Stats{Accepted: s.accepted.Load(), Open: open, Busy: s.busy.Load(), BadFrames: s.badFrames.Load(),
		SlowWrites: s.slowWrites.Load(), Refused: s.refused.Load()}
}

// StopAccepting closes every listener ServeTCP serves and makes /ws answer
// 503. Connections already open stay open. Safe to call more than once.
func (s *Server) StopAccepting() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopping = true
	for ln := range s.listeners {
		_ = ln.Close()
	}
	clear(s.listeners)
}

// Close stops accepting, gives the open connections until ctx ends to
// write what the engine queued for them and end, then closes the rest and
// waits for every goroutine of the Server. Call it after the engine's Run
// has returned (everyone logged out).
func (s *Server) Close(ctx context.Context) {
	s.StopAccepting()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	s.mu.Lock()
	for ss := range s.sessions {
		_ = ss.Close()
	}
	s.mu.Unlock()
	<-done
}

func (s *Server) isStopping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopping
}

// track registers a new session; false after StopAccepting.
func (s *Server) track(ss *session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		s.refused.Add(1)
		return false
	}
	s.sessions[ss] = struct{}{}
	s.wg.Add(1)
	s.accepted.Add(1)
	return true
}

func (s *Server) untrack(ss *session) {
	s.mu.Lock()
	delete(s.sessions, ss)
	s.mu.Unlock()
	s.wg.Done()
}
