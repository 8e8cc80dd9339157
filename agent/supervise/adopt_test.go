//go:build unix

package supervise

import (
	"os"
	"syscall"
	"testing"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
)

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
	f.sup = f.newSupervisor(t, fastPolicy(config.RestartNever))
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
