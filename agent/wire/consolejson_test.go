package wire

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func roundTripConsole(t *testing.T, m ConsoleMessage) {
	t.Helper()
	fast := m.AppendJSON(nil)
	var got, want ConsoleMessage
	if err := json.Unmarshal(fast, &got); err != nil {
		t.Fatalf("AppendJSON output is not JSON: %v\n%q", err, fast)
	}
	std, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(std, &want); err != nil {
		t.Fatal(err)
	}
	if !got.Timestamp.Equal(want.Timestamp) || got.InstanceID != want.InstanceID || len(got.Lines) != len(want.Lines) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range got.Lines {
		if got.Lines[i] != want.Lines[i] {
			t.Fatalf("line %d: got %q, want %q", i, got.Lines[i], want.Lines[i])
		}
	}
}

func TestConsoleMessage_AppendJSON(t *testing.T) {
	ts := time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.UTC)
	for _, text := range []string{"", "plain", `quote " and \ backslash`, "tab\tcr\rnl\n", "\x00\x01\x1f\x7f",
		"ünïcödé ✓ 🚀", "bad \xff\xfe utf8", "half \xe2\x82", "<html>&amp;", "\u2028\u2029", strings.Repeat("x", 70000)} {
		roundTripConsole(t, ConsoleMessage{Timestamp: ts, InstanceID: "world10",
			Lines: []ConsoleLine{{Stream: StreamStdout, Text: text}, {Stream: StreamAgent, Text: "n"}}})
	}
	roundTripConsole(t, ConsoleMessage{Timestamp: ts, InstanceID: "x"})
}

func FuzzConsoleAppendJSON(f *testing.F) {
	f.Add("world10", "hello", "stdout")
	f.Add("a", "\xff\"\\\n", "stderr")
	f.Fuzz(func(t *testing.T, id, text, stream string) {
		roundTripConsole(t, ConsoleMessage{Timestamp: time.Unix(1, 2).UTC(), InstanceID: id,
			Lines: []ConsoleLine{{Stream: stream, Text: text}}})
	})
}

func BenchmarkConsoleEncode(b *testing.B) {
	m := ConsoleMessage{Timestamp: time.Now().UTC(), InstanceID: "world10"}
	for i := range 500 {
		m.Lines = append(m.Lines, ConsoleLine{Stream: StreamStdout, Text: "[12:00:00] tick " + strings.Repeat("x", i%40)})
	}
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := json.Marshal(&m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("corrosion", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for range b.N {
			buf = m.AppendJSON(buf[:0])
		}
	})
}
