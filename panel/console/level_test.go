package console_test

import (
	"strings"
	"testing"

	"github.com/corrosion/corrosion/panel/console"
)

func TestLineLevel(t *testing.T) {
	tests := map[string]console.Level{
		`time=2026-11-27T21:00:00Z level=INFO msg="world ready" node=10`: console.LevelInfo,
		`time=2026-11-27T21:00:00Z level=DEBUG msg=x`:                    console.LevelInfo,
		`time=2026-11-27T21:00:00Z level=WARN msg="sidecar link lost"`:   console.LevelWarn,
		`time=2026-11-27T21:00:00Z level=ERROR msg="cannot save"`:        console.LevelError,
		`time=x level=WARN+2 msg=y`:                                      console.LevelWarn,
		`level="error" msg=y`:                                            console.LevelError,
		`msg="level=error in the text" level=info`:                       console.LevelInfo, // the first field that starts with level=
		`xlevel=error`: console.LevelNone,
		`{"time":"2026","level":"info","msg":"hi"}`:    console.LevelInfo,
		`  { "level" : "warning", "msg":"hi"}`:         console.LevelWarn,
		`{"msg":"\"level\":\"error\"","level":"info"}`: console.LevelInfo,
		`{"lvl":"error"}`:                              console.LevelNone,
		`{"level":3}`:                                  console.LevelNone,
		`Error: something broke`:                       console.LevelNone,
		`level=`:                                       console.LevelNone,
		`level="unterminated`:                          console.LevelNone,
		`level=verbose`:                                console.LevelNone,
		``:                                             console.LevelNone,
	}
	for text, want := range tests {
		if got := console.LineLevel(text); got != want {
			t.Errorf("LineLevel(%q) = %d, want %d", text, got, want)
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
