//go:build unix

package supervise

import (
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
)

// TestSupervisor_Status_CountsRestartsAndCrashLoops: Restarts counts the
// crash restarts and CrashLoops the give-ups; unlike CrashCount, a manual
// start does not reset them (they are counters for metrics).
func TestSupervisor_Status_CountsRestartsAndCrashLoops(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, p *Policy) {
		c.Restart = config.RestartOnCrash
		p.CrashLoopCount = 3
	}, "-run-for", "50ms", "-exit-code", "3")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		d := f.waitTimer(t)
		if st := f.sup.Status(); st.Restarts != int64(i) || st.CrashLoops != 0 {
			t.Fatalf("before restart %d: restarts %d, crash loops %d", i+1, st.Restarts, st.CrashLoops)
		}
		f.clock.Advance(d)
	}
	poll.True(t, 20*time.Second, "crash loop gave up", func() bool {
		return strings.Contains(f.sink.lastEvent().Message, "crash loop")
	})
	st := f.sup.Status()
	if st.State != wire.StateCrashed || st.Restarts != 2 || st.CrashLoops != 1 {
		t.Fatalf("after the crash loop: %+v, want crashed with 2 restarts and 1 crash loop", st)
	}
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	if st := f.sup.Status(); st.CrashCount != 0 || st.Restarts != 2 || st.CrashLoops != 1 {
		t.Fatalf("after a manual start: %+v, want crash count 0 and the counters kept", st)
	}
}
