//go:build unix

package supervise

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
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
	if got, want := f.sink.states(), []string{"running", "stopping", "stopped"}; !slices.Equal(got, want) {
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
	if got := f.sink.states(); !slices.Equal(got, []string{"starting", "running"}) {
		t.Fatalf("events %v", got)
	}
}

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
	start := time.Now()
	if err := f.sup.Stop(); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "ignoring")
	if err := f.sup.Start(true); !errors.Is(err, ErrBusy) {
		t.Fatalf("start while stopping: %v, want busy", err)
	}
	st := f.waitState(t, wire.StateStopped)
	if el := time.Since(start); el < 900*time.Millisecond {
		t.Fatalf("killed after %v, before the 1s stop timeout", el)
	}
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

func TestSupervisor_CrashBackoffThenCrashLoop(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.Restart = "on-crash" },
		"-run-for", "50ms", "-exit-code", "3")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 20*time.Second, "crash loop gave up", func() bool {
		return strings.Contains(f.sink.lastEvent().Message, "crash loop")
	})
	st := f.sup.Status()
	if st.State != wire.StateCrashed || st.CrashCount != 4 || st.RestartIn != nil {
		t.Fatalf("status %+v", st)
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
	f := newFixture(t, func(c *config.Instance, p *Policy) { c.Restart = "always" }, "-run-for", "30ms")
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
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.Restart = "on-crash" }, "-run-for", "30ms")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	st := f.waitState(t, wire.StateCrashed)
	if st.RestartIn != nil {
		t.Fatalf("on-crash scheduled a restart after exit 0: %+v", st)
	}
}

func TestSupervisor_SendAndStopCommandViaSend(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, p *Policy) { c.StopCommand = "quit"; c.Restart = "always" },
		"-stop-line", "quit")
	if err := f.sup.Send("hello"); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("send to a stopped instance: %v", err)
	}
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	if err := f.sup.Send("hello there"); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "echo: hello there")
	if err := f.sup.Send("two\nlines"); err == nil {
		t.Fatal("a line with a newline was accepted")
	}
	if err := f.sup.Send("quit"); err != nil {
		t.Fatal(err)
	}
	st := f.waitState(t, wire.StateStopped)
	if st.RestartIn != nil || !st.ManualStop {
		t.Fatalf("a typed stop command counted as a crash: %+v events %v", st, f.sink.states())
	}
}

func TestSupervisor_AdoptAfterDetach(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	st := f.waitState(t, wire.StateRunning)
	f.waitLine(t, "fakegame starting")
	f.sup.Close() // the agent goes away; the game keeps running
	if syscall.Kill(st.PID, 0) != nil {
		t.Fatal("game died with its supervisor")
	}
	f.sup = f.newSupervisor(t, fastPolicy("never"))
	res, err := f.sup.Adopt()
	if err != nil || res != AdoptRunning {
		t.Fatalf("adopt = %v, %v", res, err)
	}
	got := f.sup.Status()
	if got.State != wire.StateRunning || got.PID != st.PID || !got.Adopted {
		t.Fatalf("adopted status %+v, want running pid %d", got, st.PID)
	}
	if err := f.sup.Send("after adoption"); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "echo: after adoption")
	if err := f.sup.Stop(); err != nil {
		t.Fatal(err)
	}
	got = f.waitState(t, wire.StateStopped)
	if got.ExitCode != nil {
		t.Fatalf("an adopted process's exit code cannot be known, got %d", *got.ExitCode)
	}
}

func TestSupervisor_AdoptRefusesReusedPID(t *testing.T) {
	f := newFixture(t, nil)
	// Our own PID is alive but was not started at this time: a reused PID.
	p := persisted{Version: 1, Exec: f.cfg.Exec, Process: &ident{PID: os.Getpid(), StartTime: 12345}}
	if err := writeJSONAtomic(f.dir+"/"+stateFile, p); err != nil {
		t.Fatal(err)
	}
	res, err := f.sup.Adopt()
	if err != nil || res != AdoptVanished {
		t.Fatalf("adopt = %v, %v; want vanished", res, err)
	}
	if st := f.sup.Status(); st.State != wire.StateCrashed || st.PID != 0 {
		t.Fatalf("status %+v", st)
	}
}

func TestSupervisor_ConsoleThrottleDropsWithOneNotice(t *testing.T) {
	f := newFixture(t, nil, "-flood", "200000")
	f.sup.con.lim.LineLimit = 1000
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitState(t, wire.StateCrashed) // the flood ends on its own
	if f.sup.Status().DroppedLines == 0 {
		t.Fatal("nothing dropped")
	}
	if n := f.sink.countLines("console output throttled"); n < 1 || n > 3 {
		t.Fatalf("%d throttle notices for one burst", n)
	}
	if got := len(f.sup.Logs(0)); got != 50 {
		t.Fatalf("ring holds %d lines, want 50", got)
	}
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

func TestSupervisor_CheckpointSkipsUnchangedState(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "fakegame starting")
	inode := func() uint64 {
		var st syscall.Stat_t
		if err := syscall.Stat(f.dir+"/"+stateFile, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ino
	}
	f.sup.Checkpoint()
	before := inode()
	f.sup.Checkpoint()
	if inode() != before {
		t.Fatal("an unchanged state was rewritten")
	}
	if err := f.sup.Send("more output"); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "echo: more output")
	f.sup.Checkpoint() // the log offset moved: saved again
	if inode() == before {
		t.Fatal("a changed offset was not saved")
	}
}
