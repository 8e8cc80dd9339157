package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/console"
)

func TestLineLevel(t *testing.T) {
	tests := []struct {
		text string
		want console.Level
	}{
		{`time=2026-11-27T21:00:00Z level=INFO msg="world ready" node=10`, console.LevelInfo},
		{`time=2026-11-27T21:00:00Z level=DEBUG msg=x`, console.LevelInfo},
		{`time=2026-11-27T21:00:00Z level=WARN msg="sidecar link lost"`, console.LevelWarn},
		{`time=2026-11-27T21:00:00Z level=ERROR msg="cannot save"`, console.LevelError},
		{`time=x level=WARN+2 msg=y`, console.LevelWarn},
		{`level="error" msg=y`, console.LevelError},
		{`msg="level=error in the text" level=info`, console.LevelInfo}, // the first field that starts with level=
		{`xlevel=error`, console.LevelNone},
		{`{"time":"2026","level":"info","msg":"hi"}`, console.LevelInfo},
		{`  { "level" : "warning", "msg":"hi"}`, console.LevelWarn},
		{`{"msg":"\"level\":\"error\"","level":"info"}`, console.LevelInfo},
		{`{"lvl":"error"}`, console.LevelNone},
		{`{"level":3}`, console.LevelNone},
		{`Error: something broke`, console.LevelNone},
		{`level=`, console.LevelNone},
		{`level="unterminated`, console.LevelNone},
		{`level=verbose`, console.LevelNone},
		{``, console.LevelNone},
	}
	for _, tt := range tests {
		if got := console.LineLevel(tt.text); got != tt.want {
			t.Errorf("LineLevel(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

// FuzzLineLevel: any line, however broken, gets a level and no panic; a
// line with no "level" in it states none.
func FuzzLineLevel(f *testing.F) {
	for _, s := range []string{`level=INFO`, `{"level":"error"}`, `level="`, `{"level":`, `{ , "level" :"`, "level=\x00", "\xff level=warn"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l := console.LineLevel(s)
		if l < console.LevelNone || l > console.LevelError {
			t.Fatalf("LineLevel(%q) = %d", s, l)
		}
		if !strings.Contains(s, "level") && l != console.LevelNone {
			t.Fatalf("LineLevel(%q) = %d without a level in the line", s, l)
		}
	})
}

// TestConsole_TintByLevel: a line is tinted by the level it states,
// whatever stream it came on (worldsrv and ether log INFO to stderr when
// run by hand); a line that states none is tinted by its stream.
func TestConsole_TintByLevel(t *testing.T) {
	e := newEnv(t)
	events, status, _ := openStream(t, e.op, e.p.URL+"/hosts/"+licA+"/instances/ghost/console/stream")
	if status != 200 {
		t.Fatalf("stream: %d", status)
	}
	poll.True(t, 5*time.Second, "the stream is watching", func() bool { return e.hub().Watchers() == 1 })
	lines := []wire.ConsoleLine{
		{Stream: "stderr", Text: `time=2026-11-27T21:00:00Z level=INFO msg="world ready"`},
		{Stream: "stderr", Text: `time=2026-11-27T21:00:00Z level=WARN msg="sidecar link lost"`},
		{Stream: "stdout", Text: `{"level":"error","msg":"cannot save"}`},
		{Stream: "stderr", Text: `panic: runtime error`},
		{Stream: "stdout", Text: `plain output`},
	}
	m := wire.ConsoleMessage{Timestamp: time.Now(), InstanceID: "ghost", Lines: lines}
	if err := e.p.NC.Publish(wire.ConsoleSubject(licA, "ghost"), m.AppendJSON(nil)); err != nil {
		t.Fatal(err)
	}
	seen := waitFor(t, events, "plain output")
	var tints []string
	for _, ev := range seen {
		if ev.name != console.EventLines {
			continue
		}
		_, s, _ := ev.lines(t)
		tints = append(tints, s...)
	}
	want := []string{"o", "w", "e", "e", "o"}
	if strings.Join(tints, ",") != strings.Join(want, ",") {
		t.Fatalf("tints %q, want %q", tints, want)
	}
}
