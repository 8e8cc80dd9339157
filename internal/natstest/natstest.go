// Package natstest starts a real NATS server (JetStream on) on a free
// loopback port for tests: the embedded nats-server of go.mod, a cluster of
// them, or the machine's nats-server binary (Debian 12 ships 2.9) as its own
// process. It is imported only by tests.
package natstest

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/internal/natsembed"
)

// Kind is which NATS server a test runs against.
type Kind string

const (
	// Embedded is nats-server/v2 (the go.mod version) in the test process.
	Embedded Kind = "embedded"
	// External is the machine's nats-server binary started as its own
	// process (see EnvBinary).
	External Kind = "external"
)

// EnvServer selects the Kind that Start uses: NATSTEST_SERVER=external runs
// every test of a package against the external binary. Default: embedded.
const EnvServer = "NATSTEST_SERVER"

// Server is a NATS server bound to 127.0.0.1 that can be stopped and
// restarted on the same port and store, to test reconnects.
// Its methods are safe for concurrent use.
type Server struct {
	t    testing.TB        // immutable
	kind Kind              // immutable
	port int               // immutable
	dir  string            // immutable
	opts natsembed.Options // immutable; embedded servers
	ext  *externalBinary   // immutable; external servers

	mu   sync.Mutex
	srv  *server.Server // guarded by mu; embedded, nil while stopped
	proc *process       // guarded by mu; external, nil while stopped
}

// Start launches a server of the Kind named by $NATSTEST_SERVER (embedded
// when unset) and registers its shutdown with t.Cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	kind := Kind(os.Getenv(EnvServer))
	switch kind {
	case "":
		kind = Embedded
	case Embedded, External:
	default:
		t.Fatalf("natstest: %s=%q: want %q or %q", EnvServer, kind, Embedded, External)
	}
	return StartKind(t, kind)
}

// UseExternal makes every Start in this test (and its subtests) start the
// external binary. Like t.Setenv, it cannot be used in parallel tests.
func UseExternal(t testing.TB) { t.Setenv(EnvServer, string(External)) }

// StartKind launches a server of kind and registers its shutdown with
// t.Cleanup. A missing external binary fails the test (it never skips).
func StartKind(t testing.TB, kind Kind) *Server {
	t.Helper()
	port := FreePort(t)
	s := &Server{t: t, kind: kind, port: port, dir: t.TempDir(),
		opts: natsembed.Options{Port: port}}
	s.opts.StoreDir = s.dir
	if kind == External {
		s.ext = findExternal(t)
	}
	s.Restart()
	t.Cleanup(s.Shutdown)
	return s
}

// StartCluster launches n embedded servers forming one NATS cluster
// (routes on free loopback ports, clustered JetStream), named n1…nN, and
// waits until JetStream has a meta leader.
func StartCluster(t testing.TB, n int) []*Server {
	t.Helper()
	routePorts := make([]int, n)
	routes := make([]string, n)
	for i := range routePorts {
		routePorts[i] = FreePort(t)
		routes[i] = "nats://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(routePorts[i]))
	}
	out := make([]*Server, n)
	for i := range out {
		port := FreePort(t)
		s := &Server{t: t, kind: Embedded, port: port, dir: t.TempDir()}
		s.opts = natsembed.Options{Port: port, StoreDir: s.dir, Name: "n" + strconv.Itoa(i+1),
			Cluster: &natsembed.Cluster{Name: "natstest", Port: routePorts[i], Routes: routes}}
		s.Restart()
		t.Cleanup(s.Shutdown)
		out[i] = s
	}
	waitMetaLeader(t, out[0])
	return out
}

// Kind is the kind of server.
func (s *Server) Kind() Kind { return s.kind }

// Name is the server name (n1… in a cluster; empty for a lone embedded
// server).
func (s *Server) Name() string { return s.opts.Name }

// URL is the client URL, e.g. nats://127.0.0.1:34567.
func (s *Server) URL() string { return "nats://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

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
	if s.proc != nil {
		s.proc.stop()
		s.proc = nil
	}
}

// Restart starts the server again (or for the first time) on the same port
// and JetStream store.
func (s *Server) Restart() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shutdownLocked()
	if s.kind == External {
		proc, err := s.ext.start(s.port, s.dir)
		if err != nil {
			s.t.Fatalf("natstest: %v", err)
		}
		s.proc = proc
		return
	}
	srv, err := natsembed.Start(s.opts)
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

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago,
// never the same one twice in one test process.
//
// It is taken from below Linux's ephemeral range (32768–60999), not from
// it: a port the kernel hands out for ":0" is also the one it hands the
// next outgoing connection, so under a loaded parallel test run another
// test's client socket took it between this check and the program's bind
// ("address already in use"). Each test process walks the range from a
// random start, so two processes rarely meet, and one never repeats itself
// (two draws of one test must differ: a world refuses the same port for
// two listeners).
func FreePort(t testing.TB) int {
	t.Helper()
	freePortStart.Do(func() { freePortNext.Store(rand.Uint32N(freePortHigh - freePortLow)) })
	for range 512 {
		port := freePortLow + int(freePortNext.Add(1)%(freePortHigh-freePortLow))
		if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			l.Close()
			return port
		}
	}
	t.Fatalf("natstest: no free port in %d-%d", freePortLow, freePortHigh)
	return 0
}

// The range FreePort walks: below the ephemeral ports and above the
// design's well-known ones (4222, 5010+, 7780, 8080+, 25510+), which a
// test that needs them must find free.
const freePortLow, freePortHigh = 26000, 32000

var (
	freePortStart sync.Once
	freePortNext  atomic.Uint32 // the last offset handed out
)
