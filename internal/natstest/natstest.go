// Package natstest starts a real embedded NATS server (JetStream on) on a
// free loopback port for tests. It is imported only by tests.
package natstest

import (
	"net"
	"sync"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/internal/natsembed"
)

// Server is an embedded NATS server bound to 127.0.0.1 that can be stopped
// and restarted on the same port and store, to test reconnects.
// Its methods are safe for concurrent use.
type Server struct {
	t    testing.TB // immutable
	port int        // immutable
	dir  string     // immutable

	mu  sync.Mutex
	srv *server.Server // guarded by mu; nil while stopped
}

// Start launches a server and registers its shutdown with t.Cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, port: FreePort(t), dir: t.TempDir()}
	s.Restart()
	t.Cleanup(s.Shutdown)
	return s
}

// URL is the client URL, e.g. nats://127.0.0.1:34567.
func (s *Server) URL() string { return "nats://" + net.JoinHostPort("127.0.0.1", itoa(s.port)) }

// Port is the client port.
func (s *Server) Port() int { return s.port }

// Shutdown stops the server; it is safe to call more than once.
func (s *Server) Shutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shutdownLocked()
}

func (s *Server) shutdownLocked() {
	if s.srv != nil {
		s.srv.Shutdown()
		s.srv.WaitForShutdown()
		s.srv = nil
	}
}

// Restart starts the server again (or for the first time) on the same port
// and JetStream store.
func (s *Server) Restart() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shutdownLocked()
	srv, err := natsembed.Start(natsembed.Options{Port: s.port, StoreDir: s.dir})
	if err != nil {
		s.t.Fatalf("natstest: %v", err)
	}
	s.srv = srv
}

// Connect dials the server with a client that is closed at cleanup.
func (s *Server) Connect(t testing.TB, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.URL(), opts...)
	if err != nil {
		t.Fatalf("natstest: connect: %v", err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("natstest: free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func itoa(n int) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = digits[n%10]
		n /= 10
	}
	return string(b[i:])
}
