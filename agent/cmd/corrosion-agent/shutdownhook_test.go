package main

import (
	"errors"
	"testing"
)

// TestHookDecision: only "stopping" (a shutdown or reboot is queued) stops
// the games; every other state, and a systemctl that cannot answer, leaves
// them running as on any agent restart.
func TestHookDecision(t *testing.T) {
	exit1 := errors.New("exit status 1")
	cases := []struct {
		name   string
		state  string
		err    error
		want   hookAction
		saying bool // the hook says why on stderr
	}{
		{"running", "running\n", nil, hookLeave, false},
		{"degraded (exits 1)", "degraded\n", exit1, hookLeave, false},
		{"starting", "starting\n", exit1, hookLeave, false},
		{"maintenance", "maintenance\n", exit1, hookLeave, false},
		{"stopping", "stopping\n", exit1, hookStopGames, true},
		{"stopping without a newline", "stopping", nil, hookStopGames, true},
		{"systemctl missing", "", errors.New(`exec: "systemctl": executable file not found in $PATH`), hookLeave, true},
		{"systemctl cannot reach systemd", "", errors.New("exit status 1"), hookLeave, true},
		{"offline (not booted with systemd)", "offline\n", exit1, hookLeave, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, msg := hookDecision(c.state, c.err)
			if got != c.want {
				t.Errorf("hookDecision(%q, %v) = %v, want %v", c.state, c.err, got, c.want)
			}
			if (msg != "") != c.saying {
				t.Errorf("hookDecision(%q, %v) says %q", c.state, c.err, msg)
			}
		})
	}
}
