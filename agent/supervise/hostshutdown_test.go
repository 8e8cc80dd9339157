//go:build unix

package supervise

import (
	"errors"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
)

// TestSupervisor_StopForHostShutdown_NotAManualStop: the host-shutdown stop
// uses the stop command like Stop, restart = "always" does not restart the
// game, and autostart (a start that is not manual) may start it again at
// the next boot, which an operator's Stop would prevent.
func TestSupervisor_StopForHostShutdown_NotAManualStop(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, _ *Policy) {
		c.StopCommand, c.Restart = "quit", config.RestartAlways
	}, "-stop-line", "quit", "-ignore-sigterm", "-stop-exit-code", "0")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "fakegame starting")
	if err := f.sup.StopForHostShutdown(); err != nil {
		t.Fatal(err)
	}
	st := f.waitState(t, wire.StateStopped)
	f.waitLine(t, "stop line received")
	if st.ManualStop || st.RestartIn != nil || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Fatalf("after the host-shutdown stop: %+v", st)
	}
	if err := f.sup.StopForHostShutdown(); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("a second host-shutdown stop: %v, want ErrNotRunning", err)
	}
	if err := f.sup.Start(false); err != nil {
		t.Fatalf("autostart after a host-shutdown stop: %v", err)
	}
	f.waitState(t, wire.StateRunning)
}

// TestSupervisor_StopForHostShutdown_CancelsPendingRestart: a crashed game
// waiting for its restart is not started again.
func TestSupervisor_StopForHostShutdown_CancelsPendingRestart(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.Restart = config.RestartAlways }, "-run-for", "30ms")
	f.sup.crashes.pol.BackoffInitial = time.Hour
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitState(t, wire.StateCrashed)
	if err := f.sup.StopForHostShutdown(); err != nil {
		t.Fatal(err)
	}
	st := f.waitState(t, wire.StateStopped)
	if st.RestartIn != nil || st.ManualStop {
		t.Fatalf("after the host-shutdown stop: %+v", st)
	}
	f.clock.Advance(2 * time.Hour)
	if st := f.sup.Status(); st.State != wire.StateStopped {
		t.Fatalf("restarted after the host-shutdown stop: %+v", st)
	}
}
