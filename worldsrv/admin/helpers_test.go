package admin_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/worldsrv/admin"
)

// recordingConsole is a tiny stand-in for the engine (not built yet): it
// records every call and answers from a player list.
type recordingConsole struct {
	mu       sync.Mutex
	players  []string // guarded by mu
	calls    []string // guarded by mu
	shutting bool     // guarded by mu
	block    chan struct{}
}

var _ admin.Console = (*recordingConsole)(nil)

func (c *recordingConsole) record(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf(format, args...))
}

func (c *recordingConsole) Calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls)
}

func (c *recordingConsole) setPlayers(names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.players = names
}

func (c *recordingConsole) Status(ctx context.Context) (admin.Status, error) {
	if c.block != nil { // a stalled tick: answer only when ctx ends
		<-ctx.Done()
		return admin.Status{}, ctx.Err()
	}
	c.record("status")
	c.mu.Lock()
	defer c.mu.Unlock()
	return admin.Status{Node: 10, Seed: 3735552002, Biome: "arctic", Players: len(c.players), MaxPlayers: 2000,
		Uptime: 312 * time.Second, Ether: "up", Ticks: 520, TickP99: 4200 * time.Microsecond}, nil
}

func (c *recordingConsole) Players(context.Context) ([]string, error) {
	c.record("players")
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.players), nil
}

func (c *recordingConsole) Say(_ context.Context, text string) error {
	c.record("say %s", text)
	return nil
}

func (c *recordingConsole) Kick(_ context.Context, name string) error {
	c.record("kick %s", name)
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.IndexFunc(c.players, func(p string) bool { return strings.EqualFold(p, name) })
	if i < 0 {
		return admin.ErrNoSuchPlayer
	}
	c.players = slices.Delete(c.players, i, i+1)
	return nil
}

func (c *recordingConsole) Save(context.Context) (int, error) {
	c.record("save")
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.players), nil
}

func (c *recordingConsole) Shutdown(_ context.Context, after time.Duration) error {
	c.record("shutdown %v", after)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shutting {
		return admin.ErrShuttingDown
	}
	c.shutting = true
	return nil
}

// fakeClock is the limiter's clock in tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time // guarded by mu
}

func newClock() *fakeClock { return &fakeClock{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// logSink sends log lines to t.Log and keeps them, so a test can check
// the password never shows.
type logSink struct {
	t  testing.TB
	mu sync.Mutex
	b  bytes.Buffer // guarded by mu
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.b.Write(p)
	l.mu.Unlock()
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

const testPassword = "s3cret pass/word"

// world is a running admin console: Source RCON on a 127.0.0.1 port and
// WebRCON mounted at /rcon/{password} on an HTTP test server.
type world struct {
	srv     *admin.Server
	console *recordingConsole
	clock   *fakeClock
	logs    *logSink
	srcPort int
	webPort int
}

func startWorld(t *testing.T, cfg admin.Config) *world {
	t.Helper()
	w := &world{console: &recordingConsole{}, clock: newClock(), logs: &logSink{t: t}}
	if cfg.Password == "" {
		cfg.Password = testPassword
	}
	if cfg.Console == nil {
		cfg.Console = w.console
	}
	cfg.Now = w.clock.Now
	cfg.Logger = slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := admin.New(cfg)
	if err != nil {
		t.Fatalf("admin.New: %v", err)
	}
	w.srv = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	w.srcPort = ln.Addr().(*net.TCPAddr).Port
	done := make(chan error, 1)
	go func() { done <- srv.ServeSource(context.Background(), ln) }()
	mux := http.NewServeMux()
	mux.Handle("/rcon/{password}", srv.WebHandler())
	hs := httptest.NewServer(mux)
	w.webPort = hs.Listener.Addr().(*net.TCPAddr).Port
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
		if err := <-done; err != nil {
			t.Errorf("ServeSource: %v", err)
		}
		if strings.Contains(w.logs.String(), testPassword) {
			t.Errorf("the password appears in the log")
		}
	})
	return w
}

// manyPlayers returns n distinct valid player names.
func manyPlayers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("player%05d", i)
	}
	return out
}
