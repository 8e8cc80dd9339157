//go:build unix

package supervise

import (
	"testing"

	"github.com/corrosion/corrosion/agent/wire"
)

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
