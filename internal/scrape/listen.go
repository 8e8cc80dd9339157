package scrape

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// stopGrace is how long Stop lets a running scrape finish before it closes
// the connections.
const stopGrace = 2 * time.Second

// Listener serves a program's /metrics (and whatever else its handler
// answers) on an address of its own. Listen, then Serve, then Stop.
type Listener struct {
	ln       net.Listener  // immutable after Listen
	srv      *http.Server  // immutable after Listen
	log      *slog.Logger  // immutable after Listen
	done     chan struct{} // closed when Serve's goroutine has ended
	serve    sync.Once
	stop     sync.Once
	serveRan bool // written under serve, read under stop (after serve's Do)
}

// Listen listens on addr (host:port) for h; it fails at once when the
// address cannot be listened on, so that the program can refuse to start
// (net's error names the address).
func Listen(addr string, h http.Handler, log *slog.Logger) (*Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &Listener{ln: ln, log: log, done: make(chan struct{}),
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}}, nil
}

// Addr is the address listened on.
func (l *Listener) Addr() net.Addr { return l.ln.Addr() }

// Serve serves in the background until Stop; a second call does nothing.
func (l *Listener) Serve() {
	l.serve.Do(func() {
		l.serveRan = true
		go func() {
			defer close(l.done)
			if err := l.srv.Serve(l.ln); !errors.Is(err, http.ErrServerClosed) {
				l.log.Error("metrics server stopped", "err", err)
			}
		}()
	})
}

// Stop stops serving: a scrape still running gets stopGrace, then its
// connection is closed. It returns when Serve's goroutine has ended, and
// closes the listener of one that was never served. Idempotent.
func (l *Listener) Stop() {
	l.serve.Do(func() {}) // a Serve after Stop does nothing
	l.stop.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), stopGrace)
		defer cancel()
		if l.srv.Shutdown(ctx) != nil {
			_ = l.srv.Close()
		}
		if l.serveRan {
			<-l.done
		} else {
			_ = l.ln.Close()
		}
	})
}
