//go:build unix

package supervise

import (
	"errors"
	"slices"
	"testing"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
)

// TestSupervisor_Reconfigure_NextSpawn: a new config leaves the running
// process as it is; the restart runs the new args and waits for the new
// ready pattern. A config of another instance is refused.
func TestSupervisor_Reconfigure_NextSpawn(t *testing.T) {
	f := newFixture(t, nil, "-banner", "banner one")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	pid := f.waitState(t, wire.StateRunning).PID
	f.waitLine(t, "banner one")

	next := *f.cfg
	next.Args = []string{"-banner", "banner two", "-ready-after", "10ms", "-ready-line", "now ready"}
	next.ReadyPattern = "^now ready$"
	if err := f.sup.Reconfigure(&next); err != nil {
		t.Fatal(err)
	}
	if st := f.sup.Status(); st.State != wire.StateRunning || st.PID != pid {
		t.Fatalf("after Reconfigure: %+v, want still running as pid %d", st, pid)
	}
	if err := f.sup.Restart(); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "banner two")
	f.waitState(t, wire.StateRunning)
	if !f.sink.hasLine("now ready") || !slices.Contains(f.sink.states(), wire.StateStarting) {
		t.Errorf("the restart did not wait for the new ready pattern: %v", f.sink.states())
	}

	other := next
	other.ID = "another"
	if err := f.sup.Reconfigure(&other); err == nil {
		t.Error("a config of another instance was taken")
	}
	bad := next
	bad.ReadyPattern = "("
	if err := f.sup.Reconfigure(&bad); err == nil {
		t.Error("a ready pattern that does not compile was taken")
	}
	if f.sup.conf() != &next {
		t.Error("a refused Reconfigure changed the config")
	}
}

// TestSupervisor_Stop_SignalNamed: a stop sends the config's StopSignal
// (SIGINT here), and every signal config.StopSignals names can be sent.
func TestSupervisor_Stop_SignalNamed(t *testing.T) {
	for _, name := range config.StopSignals {
		if _, ok := stopSignals[name]; !ok {
			t.Errorf("stop signal %s cannot be sent", name)
		}
	}
	// Ready once fakegame handles signals (its ready line comes after).
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.StopSignal, c.ReadyPattern = "SIGINT", "^Server ready" },
		"-ready-after", "1ms")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitState(t, wire.StateRunning)
	if err := f.sup.Stop(); err != nil {
		t.Fatal(err)
	}
	f.waitState(t, wire.StateStopped)
	f.waitLine(t, "got interrupt")
}

// TestSupervisor_Stop_OverRCON: a config with StopRCON stops through the
// RCON hook, without a signal; when the hook fails, the stop signal
// follows.
func TestSupervisor_Stop_OverRCON(t *testing.T) {
	// Ready once fakegame handles signals (its ready line comes after).
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.StopRCON, c.ReadyPattern = "quit", "^Server ready" },
		"-ready-after", "1ms")
	sent := make(chan string, 2)
	fail := errors.New("connection refused")
	var answer error
	pol := fastPolicy(config.RestartNever)
	f.sup.Close()
	f.sup = f.newSupervisorWith(t, pol, func(o *Options) {
		o.RCONStop = func(cmd string) error { a := answer; sent <- cmd; return a }
	})
	for _, tc := range []struct {
		name   string
		answer error
	}{{"sent", nil}, {"failed", fail}} {
		answer = tc.answer
		if err := f.sup.Start(true); err != nil {
			t.Fatal(err)
		}
		f.waitState(t, wire.StateRunning)
		if err := f.sup.Stop(); err != nil {
			t.Fatal(err)
		}
		if got := <-sent; got != "quit" {
			t.Fatalf("%s: rcon stop sent %q, want quit", tc.name, got)
		}
		if tc.answer == nil {
			f.waitLine(t, `stopping: sending "quit" over RCON`)
			if f.sink.hasLine("got terminated") {
				t.Fatalf("%s: a signal was sent although the rcon stop went through", tc.name)
			}
			if err := f.sup.Kill(); err != nil {
				t.Fatal(err)
			}
		} else {
			f.waitLine(t, "rcon stop failed (connection refused); sending the stop signal")
			f.waitLine(t, "got terminated")
		}
		f.waitState(t, wire.StateStopped)
	}
}
