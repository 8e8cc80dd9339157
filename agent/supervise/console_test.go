package supervise

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// FuzzSplitLines: splitting loses nothing but line ends (and a \r before
// one), and no line exceeds the cap, whatever the child prints.
func FuzzSplitLines(f *testing.F) {
	for _, s := range []string{"", "a\nb\n", "no newline", "crlf\r\nx\r\n", "\n\n\n", "\r", strings.Repeat("y", 70000) + "\nz"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, rest := splitLines(nil, data)
		var joined []byte
		for _, l := range lines {
			if len(l) > wire.MaxLineBytes {
				t.Fatalf("line of %d bytes", len(l))
			}
			joined = append(joined, l...)
		}
		joined = append(joined, rest...)
		want := bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
		want = bytes.ReplaceAll(want, []byte("\n"), nil)
		if !bytes.Equal(joined, want) {
			t.Fatalf("split lost or changed bytes:\n got %q\nwant %q", joined, want)
		}
		if bytes.IndexByte(rest, '\n') >= 0 {
			t.Fatal("rest holds a complete line")
		}
	})
}

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
