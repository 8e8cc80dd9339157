//go:build unix

package supervise

import (
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
)

// readyFixture runs a game whose ready_pattern never matches, with a 5 s
// readiness budget on the fake clock.
func readyFixture(t *testing.T, action string) *fixture {
	return newFixture(t, func(c *config.Instance, _ *Policy) {
		c.ReadyPattern = `^never printed$`
		c.ReadyTimeoutSeconds = 5
		c.ReadyTimeoutAction = action
		c.Restart = config.RestartOnCrash
	})
}

func TestSupervisor_ReadyTimeout_ReportsRunning(t *testing.T) {
	f := readyFixture(t, config.ReadyTimeoutRunning)
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "fakegame starting")
	if d := f.waitTimer(t); d != 5*time.Second {
		t.Fatalf("readiness budget armed %v ahead, want 5s", d)
	}
	f.clock.Advance(5*time.Second - time.Millisecond)
	if st := f.sup.Status(); st.State != wire.StateStarting {
		t.Fatalf("before the budget ran out: %s", st.State)
	}
	f.clock.Advance(time.Millisecond)
	st := f.waitState(t, wire.StateRunning)
	if st.PID == 0 {
		t.Fatalf("status %+v", st)
	}
	if ev := f.sink.lastEvent(); !strings.Contains(ev.Message, "readiness not seen within 5s") {
		t.Fatalf("running event message %q", ev.Message)
	}
	f.sink.mu.Lock()
	defer f.sink.mu.Unlock()
	for _, l := range f.sink.lines {
		if strings.Contains(l.Text, "readiness not seen") {
			if l.Stream != wire.StreamAgent {
				t.Fatalf("notice on stream %s", l.Stream)
			}
			return
		}
	}
	t.Fatal("no console notice")
}

func TestSupervisor_ReadyTimeout_FailIsACrash(t *testing.T) {
	f := readyFixture(t, config.ReadyTimeoutFail)
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "fakegame starting")
	f.waitTimer(t)
	f.clock.Advance(5 * time.Second)
	st := f.waitState(t, wire.StateCrashed)
	ev := f.sink.lastEvent()
	if !strings.Contains(ev.Message, "start failed: readiness not seen within 5s") ||
		!strings.Contains(ev.Message, "restarting in") {
		t.Fatalf("crash event %+v", ev)
	}
	if st.RestartIn == nil || st.CrashCount != 1 {
		t.Fatalf("the crash policy did not apply: %+v", st)
	}
	if !f.sink.hasLine("killing the process tree") {
		t.Fatal("no console notice of the kill")
	}
}

func TestSupervisor_ReadyPatternMatchCancelsBudget(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, _ *Policy) {
		c.ReadyPattern = `^fakegame starting`
		c.ReadyTimeoutSeconds = 5
	})
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitState(t, wire.StateRunning)
	if _, armed := f.clock.next(); armed {
		t.Fatal("readiness budget still armed after the line matched")
	}
}
