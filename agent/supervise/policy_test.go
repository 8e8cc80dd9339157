package supervise

import (
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
)

func testPolicy(restart string) Policy {
	return Policy{Restart: restart, BackoffInitial: time.Second, BackoffMax: 60 * time.Second,
		HealthyAfter: 5 * time.Minute, CrashLoopCount: 5, CrashLoopWindow: 10 * time.Minute}
}

func TestCrashTracker_BackoffDoublesToCap(t *testing.T) {
	c := crashTracker{pol: testPolicy(config.RestartOnCrash)}
	c.pol.CrashLoopCount = 0 // no loop limit for this test
	now := time.Unix(0, 0)
	var got []time.Duration
	for i := 0; i < 9; i++ {
		d := c.onCrash(now, time.Second, 1)
		if !d.restart {
			t.Fatalf("crash %d: no restart", i)
		}
		got = append(got, d.delay)
		now = now.Add(2 * time.Minute)
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60, 60}
	for i := range want {
		if got[i] != want[i]*time.Second {
			t.Fatalf("delays %v, want %v s", got, want)
		}
	}
}

func TestCrashTracker_HealthyRunResetsBackoff(t *testing.T) {
	c := crashTracker{pol: testPolicy(config.RestartOnCrash)}
	now := time.Unix(0, 0)
	c.onCrash(now, time.Second, 1)
	c.onCrash(now.Add(time.Minute), time.Second, 1) // delay now 4s next
	d := c.onCrash(now.Add(20*time.Minute), 6*time.Minute, 1)
	if d.delay != time.Second {
		t.Fatalf("after a healthy run delay = %v, want 1s", d.delay)
	}
}

func TestCrashTracker_CrashLoopGivesUp(t *testing.T) {
	c := crashTracker{pol: testPolicy(config.RestartAlways)}
	now := time.Unix(0, 0)
	for i := 1; i <= 5; i++ {
		d := c.onCrash(now, time.Second, 1)
		if i < 5 && (!d.restart || d.gaveUp) {
			t.Fatalf("crash %d: %+v", i, d)
		}
		if i == 5 && (d.restart || !d.gaveUp) {
			t.Fatalf("crash 5 should give up: %+v", d)
		}
		now = now.Add(time.Minute)
	}
}

func TestCrashTracker_OldCrashesLeaveTheWindow(t *testing.T) {
	c := crashTracker{pol: testPolicy(config.RestartOnCrash)}
	now := time.Unix(0, 0)
	for i := 0; i < 8; i++ {
		if d := c.onCrash(now, time.Second, 2); d.gaveUp {
			t.Fatalf("crash %d gave up though crashes are 3 min apart", i)
		}
		now = now.Add(3 * time.Minute)
	}
}

func TestCrashTracker_PolicyDecidesByExitCode(t *testing.T) {
	tests := []struct {
		policy string
		code   int
		want   bool
	}{
		{config.RestartNever, 1, false},
		{config.RestartOnCrash, 1, true},
		{config.RestartOnCrash, 0, false},
		{config.RestartAlways, 0, true},
		{config.RestartAlways, 137, true},
	}
	for _, tt := range tests {
		c := crashTracker{pol: testPolicy(tt.policy)}
		if got := c.onCrash(time.Unix(0, 0), time.Second, tt.code).restart; got != tt.want {
			t.Errorf("%s exit %d: restart=%v, want %v", tt.policy, tt.code, got, tt.want)
		}
	}
}
