package supervise

import (
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

func TestConsole_ThrottleEpisodes(t *testing.T) {
	sink := &recSink{}
	c := newConsole("x", sink, ConsoleLimits{LineLimit: 3, Window: time.Second, RingLines: 10})
	t0 := time.Unix(100, 0)
	deliver(c, wire.StreamStdout, []string{"1", "2", "3", "4", "5"}, t0)
	deliver(c, wire.StreamStdout, []string{"6"}, t0.Add(100*time.Millisecond)) // same window: dropped
	deliver(c, wire.StreamStdout, []string{"7"}, t0.Add(time.Second+time.Millisecond))
	deliver(c, wire.StreamStdout, []string{"8", "9"}, t0.Add(3*time.Second))
	if got := c.Dropped(); got != 3 {
		t.Fatalf("dropped %d, want 3", got)
	}
	if n := sink.countLines("throttled"); n != 1 {
		t.Fatalf("%d notices, want one per episode", n)
	}
	// A new burst after calm windows is a new episode.
	deliver(c, wire.StreamStdout, []string{"a", "b", "c", "d"}, t0.Add(10*time.Second))
	if n := sink.countLines("throttled"); n != 2 {
		t.Fatalf("%d notices after a second burst, want 2", n)
	}
	last := c.last(3)
	if len(last) != 3 || last[2].Stream != wire.StreamAgent {
		t.Fatalf("ring tail %v", last)
	}
}
