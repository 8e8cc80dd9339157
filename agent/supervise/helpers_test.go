package supervise

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
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

func (r *recSink) states() []wire.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]wire.State, len(r.events))
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
	sup   *Supervisor
	sink  *recSink
	dir   string
	cfg   *config.Instance
	clock *fakeClock // drives the backoff, stop and readiness timers
	logs  *testbin.Output
}

// newFixture builds a supervisor running the fake game with args.
func newFixture(t *testing.T, mut func(*config.Instance, *Policy), args ...string) *fixture {
	t.Helper()
	cfg := &config.Instance{ID: "game", Game: "generic", Root: t.TempDir(),
		Exec: testbin.Build(t, "./tools/fakegame"), Args: args, StopTimeoutSeconds: 5, Restart: config.RestartNever}
	pol := fastPolicy(config.RestartNever)
	if mut != nil {
		mut(cfg, &pol)
	}
	pol.Restart = cfg.Restart
	f := &fixture{sink: &recSink{}, dir: t.TempDir(), cfg: cfg, clock: newFakeClock(), logs: &testbin.Output{}}
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
	return f.newSupervisorWith(t, pol, nil)
}

// newSupervisorWith is newSupervisor with options changed by mut.
func (f *fixture) newSupervisorWith(t *testing.T, pol Policy, mut func(*Options)) *Supervisor {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.MultiWriter(testWriter{t}, f.logs), &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts := Options{Instance: f.cfg, Policy: pol, Dir: f.dir, Sink: f.sink, Logger: logger,
		Console: ConsoleLimits{RingLines: 50}, Clock: f.clock}
	if mut != nil {
		mut(&opts)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fixture) waitState(t *testing.T, state wire.State) Status {
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

// waitTimer waits until the supervisor has armed a timer on the fake
// clock (a crash restart, a stop or readiness timeout) and returns how far
// ahead it is due.
func (f *fixture) waitTimer(t *testing.T) time.Duration {
	t.Helper()
	var d time.Duration
	poll.True(t, 10*time.Second, "a timer armed on the clock", func() bool {
		var ok bool
		d, ok = f.clock.next()
		return ok
	})
	return d
}

// fakeClock is a Clock whose time moves only by Advance, which runs the
// timers that come due, in order, on the caller's goroutine.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time    // guarded by mu
	timers []*fakeTimer // guarded by mu; armed, in no order
}

type fakeTimer struct {
	c  *fakeClock
	at time.Time // immutable
	f  func()    // immutable
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	for i, o := range t.c.timers {
		if o == t {
			t.c.timers = append(t.c.timers[:i], t.c.timers[i+1:]...)
			return true
		}
	}
	return false
}

// next reports how far ahead the earliest armed timer is due.
func (c *fakeClock) next() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return 0, false
	}
	first := c.timers[0].at
	for _, t := range c.timers[1:] {
		if t.at.Before(first) {
			first = t.at
		}
	}
	return first.Sub(c.now), true
}

// Advance moves the clock on by d and runs every timer that comes due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
		} else {
			due = append(due, t)
		}
	}
	c.timers = kept
	c.mu.Unlock()
	slices.SortFunc(due, func(a, b *fakeTimer) int { return a.at.Compare(b.at) })
	for _, t := range due {
		t.f()
	}
}
