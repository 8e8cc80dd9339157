package consolein

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

func echo(_ context.Context, line string) string { return "you said: " + line }

func TestServe(t *testing.T) {
	in := "status\r\n\n   \n" + strings.Repeat("x", MaxLine+10) + "\nhelp" // the last line without a line break
	var out strings.Builder
	if err := Serve(context.Background(), strings.NewReader(in), &out, echo); err != nil {
		t.Fatal(err)
	}
	want := "you said: status\nthe line is over 4096 bytes; nothing was run\nyou said: help\n"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}

func TestServe_NothingToRead(t *testing.T) {
	var out strings.Builder
	if err := Serve(context.Background(), strings.NewReader(""), &out, echo); err != nil || out.Len() != 0 {
		t.Fatalf("an empty input: %v, %q", err, out.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Serve(ctx, strings.NewReader("status\n"), &out, echo); err != nil || out.Len() != 0 {
		t.Fatalf("a done context: %v, %q", err, out.String())
	}
}

// FuzzServe: any input gets answers and no panic; every answer is one
// line per command.
func FuzzServe(f *testing.F) {
	for _, s := range []string{"status\n", "a\r\nb", "\n\n", strings.Repeat("y", MaxLine+1), "\x00\xff\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var out strings.Builder
		if err := Serve(context.Background(), strings.NewReader(in), &out, echo); err != nil {
			t.Fatal(err)
		}
	})
}

// TestGo: the console answers on its own goroutine, and an input that
// fails is logged once, naming why.
func TestGo(t *testing.T) {
	var logs testbin.Output
	log := slog.New(slog.NewTextHandler(&logs, nil))
	pr, pw := io.Pipe()
	var out testbin.Output
	Go(context.Background(), pr, &out, echo, log)
	if _, err := io.WriteString(pw, "status\n"); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 10*time.Second, "the answer", func() bool { return out.String() == "you said: status\n" })
	pw.CloseWithError(errors.New("stdin broke"))
	poll.True(t, 10*time.Second, "the log line", func() bool {
		return strings.Contains(logs.String(), `level=WARN msg="console input ended" err="read the console input: stdin broke"`)
	})
}
