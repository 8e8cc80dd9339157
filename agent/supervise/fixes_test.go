//go:build unix

package supervise

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
)

// TestSupervisor_Send_StdinFull: a game that does not read its input fills
// the FIFO; the send that does not fit fails as ErrStdinFull, naming no
// host path.
func TestSupervisor_Send_StdinFull(t *testing.T) {
	f := newFixture(t, nil, "-ignore-stdin")
	f.sup.stdinTimeout = 600 * time.Millisecond
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "fakegame starting")
	line := strings.Repeat("x", 4095)
	var err error
	for i := 0; i < 64 && err == nil; i++ { // 64 × 4 KiB: far past a 64 KiB pipe
		err = f.sup.Send(line)
	}
	if !errors.Is(err, ErrStdinFull) {
		t.Fatalf("send to a game that does not read: %v, want ErrStdinFull", err)
	}
	if strings.Contains(err.Error(), "/") || strings.Contains(err.Error(), f.dir) {
		t.Fatalf("message names a host path: %v", err)
	}
	// A send waiting on the full pipe does not hold up the supervisor.
	done := make(chan error, 1)
	go func() { done <- f.sup.Send("one more") }()
	var slowest time.Duration
	for waiting := true; waiting; {
		select {
		case err = <-done:
			waiting = false
		case <-time.After(10 * time.Millisecond):
		}
		t0 := time.Now()
		f.sup.Status()
		slowest = max(slowest, time.Since(t0))
	}
	if !errors.Is(err, ErrStdinFull) || slowest > 200*time.Millisecond {
		t.Fatalf("send while full: %v; Status took up to %v during it", err, slowest)
	}
	if err := f.sup.Send("a\nb"); !errors.Is(err, ErrMultiLine) {
		t.Fatalf("two lines: %v", err)
	}
}

// TestSupervisor_StartFailed_NoHostPath: a spawn failure is ErrStartFailed
// and its message keeps the program's name but not its directory.
func TestSupervisor_StartFailed_NoHostPath(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "notexec")
	if err := os.WriteFile(prog, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.Exec = prog })
	err := f.sup.Start(true)
	if !errors.Is(err, ErrStartFailed) || strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "notexec") {
		t.Fatalf("start of a non-executable file: %v", err)
	}
	if ev := f.sink.lastEvent(); ev.State != wire.StateCrashed || strings.Contains(ev.Message, dir) {
		t.Fatalf("event %+v", ev)
	}
}

// pendingRestart crashes the game once under restart=always with a 1 s
// backoff and returns once the restart is armed.
func pendingRestart(t *testing.T) *fixture {
	f := newFixture(t, func(c *config.Instance, p *Policy) {
		c.Restart = config.RestartAlways
		p.BackoffInitial, p.BackoffMax = time.Second, time.Second
	}, "-run-for", "30ms", "-exit-code", "3")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitState(t, wire.StateCrashed)
	f.waitTimer(t)
	return f
}

// TestSupervisor_RestartInRoundsUp: 400 ms before a pending restart,
// restart_in_seconds is 1, not 0.
func TestSupervisor_RestartInRoundsUp(t *testing.T) {
	f := pendingRestart(t)
	for _, tt := range []struct {
		advance time.Duration
		want    int64
	}{{0, 1}, {600 * time.Millisecond, 1}, {399 * time.Millisecond, 1}} {
		f.clock.Advance(tt.advance)
		st := f.sup.Status()
		if st.RestartIn == nil || *st.RestartIn != tt.want {
			t.Fatalf("after +%v: restart_in %v, want %d", tt.advance, st.RestartIn, tt.want)
		}
	}
}

// TestSupervisor_AnnounceKeepsMessage: the state re-sent after a reconnect
// is the event as sent, message included.
func TestSupervisor_AnnounceKeepsMessage(t *testing.T) {
	f := pendingRestart(t)
	sent := f.sink.lastEvent()
	if !strings.Contains(sent.Message, "restarting in 1s") {
		t.Fatalf("crash event %+v", sent)
	}
	f.sup.Announce()
	again := f.sink.lastEvent()
	if again.State != wire.StateCrashed || again.Message != sent.Message || again.ExitCode == nil || *again.ExitCode != 3 {
		t.Fatalf("announced %+v, want %+v", again, sent)
	}
}

// TestSupervisor_StateLogShowsExitCode: the state log line prints the exit
// code's value, not a pointer.
func TestSupervisor_StateLogShowsExitCode(t *testing.T) {
	f := pendingRestart(t)
	out := f.logs.String()
	if !strings.Contains(out, "exit_code=3") || strings.Contains(out, "exit_code=0x") {
		t.Fatalf("state log:\n%s", out)
	}
}
