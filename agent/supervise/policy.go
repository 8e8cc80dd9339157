package supervise

import (
	"time"

	"github.com/corrosion/corrosion/agent/config"
)

// Policy is the crash-restart policy of one instance.
type Policy struct {
	Restart         string        // config.RestartNever, RestartOnCrash or RestartAlways
	BackoffInitial  time.Duration // first restart delay (1 s)
	BackoffMax      time.Duration // cap of the doubling delay (60 s)
	HealthyAfter    time.Duration // a run this long resets the backoff (5 min)
	CrashLoopCount  int           // this many crashes ...
	CrashLoopWindow time.Duration // ... within this window stop the retries (5 in 10 min)
}

// crashTracker applies Policy to a sequence of crashes. It is not safe for
// concurrent use; the supervisor calls it with its lock held.
type crashTracker struct {
	pol     Policy
	delay   time.Duration // next backoff delay; 0 = initial
	crashes []time.Time   // crash times within the window
	total   int           // crashes since the last manual start
}

// decision is what to do after a crash.
type decision struct {
	restart bool
	delay   time.Duration
	gaveUp  bool // the crash-loop limit was reached
}

// onCrash records a crash at now after a run of ranFor with exit code
// code, and decides whether and when to restart.
func (c *crashTracker) onCrash(now time.Time, ranFor time.Duration, code int) decision {
	c.total++
	if ranFor >= c.pol.HealthyAfter {
		c.delay = 0
	}
	cut := now.Add(-c.pol.CrashLoopWindow)
	kept := c.crashes[:0]
	for _, t := range c.crashes {
		if t.After(cut) {
			kept = append(kept, t)
		}
	}
	c.crashes = append(kept, now)
	if !c.wantsRestart(code) {
		return decision{}
	}
	if c.pol.CrashLoopCount > 0 && len(c.crashes) >= c.pol.CrashLoopCount {
		return decision{gaveUp: true}
	}
	if c.delay == 0 {
		c.delay = c.pol.BackoffInitial
	}
	d := decision{restart: true, delay: c.delay}
	c.delay *= 2
	if c.delay > c.pol.BackoffMax {
		c.delay = c.pol.BackoffMax
	}
	return d
}

func (c *crashTracker) wantsRestart(code int) bool {
	switch c.pol.Restart {
	case config.RestartAlways:
		return true
	case config.RestartOnCrash:
		return code != 0
	}
	return false
}

// reset forgets the history: a manual start gives the instance a clean
// slate.
func (c *crashTracker) reset() {
	c.delay = 0
	c.crashes = c.crashes[:0]
	c.total = 0
}
