package supervise

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// floodTailer is a tailer on a file of its own with a console that admits
// two lines per second-long window, and a clock the test moves. cfg may
// set onLines and needAll.
func floodTailer(t *testing.T, cfg tailerConfig) (*tailer, *recSink, *time.Time, string) {
	t.Helper()
	sink := &recSink{}
	con := newConsole("x", sink, ConsoleLimits{LineLimit: 2, Window: time.Second, RingLines: 100})
	cfg.path = filepath.Join(t.TempDir(), "stdout.log")
	cfg.stream = wire.StreamStdout
	now := time.Unix(1000, 0)
	cfg.clock = func() time.Time { return now }
	return newTailer(cfg, con, testLogger(t)), sink, &now, cfg.path
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestTailer_SkipsWhatTheThrottleWouldDrop(t *testing.T) {
	tl, sink, now, path := floodTailer(t, tailerConfig{})
	flood := strings.Repeat("flood line of some length\n", 40000) // ~1 MiB: several chunks
	appendFile(t, path, flood+"half a li")
	buf := make([]byte, tailChunk)
	tl.readAvailable(buf)
	if got := tl.con.SkippedBytes(); got == 0 {
		t.Fatal("nothing skipped though the window was full after the first chunk")
	}
	if off := tl.Offset(); off != int64(len(flood)+len("half a li")) {
		t.Fatalf("offset %d after a skip, want the end of the file", off)
	}
	// The child finishes its line and goes on; a new window opens.
	appendFile(t, path, "ne\nfirst after the flood\nsecond\n")
	*now = now.Add(2 * time.Second)
	tl.readAvailable(buf)
	sink.mu.Lock()
	for _, l := range sink.lines {
		if l.Text == "ne" {
			t.Error("the rest of a skipped line was delivered as a line")
		}
	}
	sink.mu.Unlock()
	if !sink.hasLine("first after the flood") || !sink.hasLine("second") {
		t.Fatalf("lines after the flood lost: %v", sink.lines)
	}
}

func TestTailer_SkipResumesAtALineBoundary(t *testing.T) {
	tl, sink, now, path := floodTailer(t, tailerConfig{})
	appendFile(t, path, strings.Repeat("x\n", 200000)) // ends with a newline
	buf := make([]byte, tailChunk)
	tl.readAvailable(buf)
	appendFile(t, path, "whole line\n")
	*now = now.Add(2 * time.Second)
	tl.readAvailable(buf)
	if !sink.hasLine("whole line") {
		t.Fatal("the first line after a skip that ended on a newline was dropped")
	}
}

func TestTailer_NeverSkipsWhileWaitingForReadiness(t *testing.T) {
	var seen []string
	tl, _, _, path := floodTailer(t, tailerConfig{
		needAll: func() bool { return true },
		onLines: func(lines [][]byte) {
			for _, l := range lines {
				seen = append(seen, string(l))
			}
		},
	})
	appendFile(t, path, strings.Repeat("noise\n", 100000)+"World online\n")
	tl.readAvailable(make([]byte, tailChunk))
	if tl.con.SkippedBytes() != 0 || len(seen) == 0 || seen[len(seen)-1] != "World online" {
		t.Fatalf("skipped %d bytes; saw %d lines", tl.con.SkippedBytes(), len(seen))
	}
}
