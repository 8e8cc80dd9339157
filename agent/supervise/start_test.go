//go:build unix

package supervise

import (
	"errors"
	"slices"
	"testing"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
)

func TestSupervisor_StartStop_SIGTERM(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	st := f.waitState(t, wire.StateRunning)
	if st.PID == 0 {
		t.Fatal("no pid")
	}
	f.waitLine(t, "fakegame starting")
	if err := f.sup.Start(true); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("double start: %v", err)
	}
	if err := f.sup.Stop(); err != nil {
		t.Fatal(err)
	}
	st = f.waitState(t, wire.StateStopped)
	if st.ExitCode == nil || *st.ExitCode != 0 {
		t.Fatalf("exit code %v", st.ExitCode)
	}
	if got, want := f.sink.states(), []wire.State{wire.StateRunning, wire.StateStopping, wire.StateStopped}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if err := f.sup.Stop(); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("stop of a stopped instance: %v", err)
	}
	f.waitLine(t, "got terminated")
}

func TestSupervisor_ReadyPatternKeepsStarting(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.ReadyPattern = `^World online$` },
		"-ready-after", "300ms", "-ready-line", "\x1b[32mWorld online\x1b[0m")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	if st := f.sup.Status(); st.State != wire.StateStarting {
		t.Fatalf("state right after start = %s, want starting", st.State)
	}
	f.waitState(t, wire.StateRunning)
	if got := f.sink.states(); !slices.Equal(got, []wire.State{wire.StateStarting, wire.StateRunning}) {
		t.Fatalf("events %v", got)
	}
}
