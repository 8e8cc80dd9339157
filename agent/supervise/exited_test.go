//go:build unix

package supervise

import (
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
)

func TestSupervisor_CrashBackoffThenCrashLoop(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.Restart = config.RestartOnCrash },
		"-run-for", "50ms", "-exit-code", "3")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	// Each crash arms the next restart on the clock: 20, 40, 80 ms (the
	// cap), and no time passes until the test moves the clock.
	for i, want := range []time.Duration{20, 40, 80} {
		if d := f.waitTimer(t); d != want*time.Millisecond {
			t.Fatalf("restart %d armed %v ahead, want %v ms", i+1, d, want)
		}
		if st := f.sup.Status(); st.State != wire.StateCrashed || st.RestartIn == nil {
			t.Fatalf("before restart %d: %+v", i+1, st)
		}
		f.clock.Advance(want * time.Millisecond)
	}
	poll.True(t, 20*time.Second, "crash loop gave up", func() bool {
		return strings.Contains(f.sink.lastEvent().Message, "crash loop")
	})
	st := f.sup.Status()
	if st.State != wire.StateCrashed || st.CrashCount != 4 || st.RestartIn != nil {
		t.Fatalf("status %+v", st)
	}
	if _, armed := f.clock.next(); armed {
		t.Fatal("a restart is armed after the crash loop gave up")
	}
	if st.ExitCode == nil || *st.ExitCode != 3 {
		t.Fatalf("exit code %v", st.ExitCode)
	}
	if n := f.sink.countLines("restarting after crash"); n != 3 {
		t.Fatalf("%d restarts, want 3", n)
	}
	// A manual start gives a clean slate.
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	if st := f.sup.Status(); st.CrashCount != 0 {
		t.Fatalf("crash count after manual start %d", st.CrashCount)
	}
}

func TestSupervisor_ManualStopCancelsPendingRestart(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, p *Policy) { c.Restart = config.RestartAlways }, "-run-for", "30ms")
	f.sup.crashes.pol.BackoffInitial = time.Hour
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	st := f.waitState(t, wire.StateCrashed)
	if st.ExitCode == nil || *st.ExitCode != 0 {
		t.Fatalf("unrequested clean exit: %+v", st)
	}
	if st = f.sup.Status(); st.RestartIn == nil {
		t.Fatal("no pending restart under restart=always")
	}
	if err := f.sup.Stop(); err != nil {
		t.Fatal(err)
	}
	st = f.waitState(t, wire.StateStopped)
	if st.RestartIn != nil || !st.ManualStop {
		t.Fatalf("status after stop %+v", st)
	}
}

func TestSupervisor_OnCrashDoesNotRestartCleanExit(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.Restart = config.RestartOnCrash }, "-run-for", "30ms")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	st := f.waitState(t, wire.StateCrashed)
	if st.RestartIn != nil {
		t.Fatalf("on-crash scheduled a restart after exit 0: %+v", st)
	}
}
