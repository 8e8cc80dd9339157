package wire

import "testing"

// TestPowerByState is the supervisor's rule of which power action it
// takes in which state (agent/supervise asks these methods; so do the
// panel's power buttons).
func TestPowerByState(t *testing.T) {
	cases := []struct {
		s                 State
		start, stop, kill bool
	}{
		{StateStopped, true, false, false},
		{StateCrashed, true, false, false},
		{StateStarting, false, true, true},
		{StateRunning, false, true, true},
		{StateStopping, false, false, true},
		{StateConfigured, false, false, false},
		{StateMissingRoot, false, false, false},
		{"", false, false, false},
		{"paused", false, false, false},
	}
	for _, c := range cases {
		if got := c.s.CanStart(); got != c.start {
			t.Errorf("%q.CanStart() = %v, want %v", c.s, got, c.start)
		}
		if got := c.s.CanStop(); got != c.stop {
			t.Errorf("%q.CanStop() = %v, want %v", c.s, got, c.stop)
		}
		if got := c.s.CanKill(); got != c.kill {
			t.Errorf("%q.CanKill() = %v, want %v", c.s, got, c.kill)
		}
	}
}

func TestIsPowerFunc(t *testing.T) {
	for _, fn := range []string{FuncStart, FuncStop, FuncRestart, FuncKill} {
		if !IsPowerFunc(fn) {
			t.Errorf("IsPowerFunc(%q) = false", fn)
		}
	}
	for _, fn := range []string{"", FuncStatus, FuncLogs, FuncSend, FuncRCON, "Start", "start "} {
		if IsPowerFunc(fn) {
			t.Errorf("IsPowerFunc(%q) = true", fn)
		}
	}
}
