//go:build unix

package supervise

import (
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
)

func TestSupervisor_StopCommandOnStdin(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.StopCommand = "quit" },
		"-stop-line", "quit", "-ignore-sigterm", "-stop-exit-code", "0")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "fakegame starting")
	if err := f.sup.Stop(); err != nil {
		t.Fatal(err)
	}
	f.waitState(t, wire.StateStopped)
	f.waitLine(t, "stop line received")
}

func TestSupervisor_StopTimeoutKillsTree(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.StopTimeoutSeconds = 1 },
		"-ignore-sigterm", "-spawn-child")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "child pid")
	child := childPID(t, f.sink)
	if err := f.sup.Stop(); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "ignoring")
	if err := f.sup.Start(true); !errors.Is(err, ErrBusy) {
		t.Fatalf("start while stopping: %v, want busy", err)
	}
	if d := f.waitTimer(t); d != time.Second {
		t.Fatalf("kill armed %v ahead, want the 1s stop timeout", d)
	}
	f.clock.Advance(time.Second - time.Millisecond)
	if st := f.sup.Status(); st.State != wire.StateStopping || f.sink.hasLine("killing the process tree") {
		t.Fatalf("killed before the stop timeout: %+v", st)
	}
	f.clock.Advance(time.Millisecond)
	st := f.waitState(t, wire.StateStopped)
	if st.ExitCode == nil || *st.ExitCode != 128+int(syscall.SIGKILL) {
		t.Fatalf("exit code %v, want 137", st.ExitCode)
	}
	poll.True(t, 5*time.Second, "grandchild killed", func() bool { return syscall.Kill(child, 0) != nil })
}

func TestSupervisor_KillBypassesBusy(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.StopTimeoutSeconds = 30 }, "-ignore-sigterm")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "fakegame starting")
	if err := f.sup.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := f.sup.Restart(); !errors.Is(err, ErrBusy) {
		t.Fatalf("restart while stopping: %v", err)
	}
	if err := f.sup.Kill(); err != nil {
		t.Fatal(err)
	}
	f.waitState(t, wire.StateStopped)
}

func childPID(t *testing.T, s *recSink) int {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.lines {
		if rest, ok := strings.CutPrefix(l.Text, "child pid "); ok {
			pid, err := strconv.Atoi(rest)
			if err == nil {
				return pid
			}
		}
	}
	t.Fatal("no child pid line")
	return 0
}
