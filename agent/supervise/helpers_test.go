package supervise

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// recSink records what a supervisor reports.
type recSink struct {
	mu     sync.Mutex
	events []wire.StateEvent
	lines  []wire.ConsoleLine
}

func (r *recSink) State(_ string, ev wire.StateEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recSink) Console(_ string, lines []wire.ConsoleLine) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, lines...)
}

func (r *recSink) states() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.events))
	for i, e := range r.events {
		out[i] = e.State
	}
	return out
}

func (r *recSink) lastEvent() wire.StateEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.events) == 0 {
		return wire.StateEvent{}
	}
	return r.events[len(r.events)-1]
}

func (r *recSink) hasLine(sub string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.lines {
		if strings.Contains(l.Text, sub) {
			return true
		}
	}
	return false
}

func (r *recSink) countLines(sub string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, l := range r.lines {
		if strings.Contains(l.Text, sub) {
			n++
		}
	}
	return n
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// fastPolicy restarts quickly so crash tests run in well under a second.
func fastPolicy(restart string) Policy {
	return Policy{Restart: restart, BackoffInitial: 20 * time.Millisecond, BackoffMax: 80 * time.Millisecond,
		HealthyAfter: time.Minute, CrashLoopCount: 4, CrashLoopWindow: time.Minute}
}

type fixture struct {
	sup  *Supervisor
	sink *recSink
	dir  string
	cfg  *config.Instance
}

// newFixture builds a supervisor running the fake game with args.
func newFixture(t *testing.T, mut func(*config.Instance, *Policy), args ...string) *fixture {
	t.Helper()
	cfg := &config.Instance{ID: "game", Game: "generic", Root: t.TempDir(),
		Exec: testbin.Build(t, "./internal/fakegame"), Args: args, StopTimeoutSeconds: 5, Restart: "never"}
	pol := fastPolicy("never")
	if mut != nil {
		mut(cfg, &pol)
	}
	pol.Restart = cfg.Restart
	f := &fixture{sink: &recSink{}, dir: t.TempDir(), cfg: cfg}
	f.sup = f.newSupervisor(t, pol)
	t.Cleanup(func() {
		if st := f.sup.Status(); st.PID != 0 {
			_ = killTree(st.PID)
		}
		f.sup.Close()
	})
	return f
}

func (f *fixture) newSupervisor(t *testing.T, pol Policy) *Supervisor {
	t.Helper()
	s, err := New(Options{Instance: f.cfg, Policy: pol, Dir: f.dir, Sink: f.sink, Logger: testLogger(t),
		Console: ConsoleLimits{RingLines: 50}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fixture) waitState(t *testing.T, state string) Status {
	t.Helper()
	var st Status
	poll.Until(t, 10*time.Second, func() error {
		st = f.sup.Status()
		if st.State != state {
			return fmt.Errorf("state %s (busy %q), want %s; events %v", st.State, st.Busy, state, f.sink.states())
		}
		return nil
	})
	return st
}

func (f *fixture) waitLine(t *testing.T, sub string) {
	t.Helper()
	poll.True(t, 10*time.Second, "console line "+sub, func() bool { return f.sink.hasLine(sub) })
}
