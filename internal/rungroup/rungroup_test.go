package rungroup

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
)

// TestGroup: Stop cancels every function and waits for them; an error
// before Stop is logged with its name, the cancellation's is not.
func TestGroup(t *testing.T) {
	var buf bytes.Buffer // written before Stop returns, read after: no race
	g := New(slog.New(slog.NewTextHandler(&buf, nil)))
	var ended atomic.Int32
	failed := make(chan struct{})
	g.Go("broken part", func(context.Context) error { defer close(failed); return errors.New("disk full") })
	<-failed
	for range 3 {
		g.Go("worker", func(ctx context.Context) error {
			<-ctx.Done()
			ended.Add(1)
			return ctx.Err()
		})
	}
	g.Stop()
	if n := ended.Load(); n != 3 {
		t.Fatalf("%d of 3 workers returned before Stop did", n)
	}
	out := buf.String()
	if !strings.Contains(out, `msg="broken part stopped" err="disk full"`) || strings.Contains(out, "worker") {
		t.Fatalf("log:\n%s", out)
	}
}

func TestRun(t *testing.T) {
	done := false
	stop := Run(slog.New(slog.DiscardHandler), "one", func(ctx context.Context) error {
		<-ctx.Done()
		done = true
		return nil
	})
	stop()
	if !done {
		t.Fatal("stop returned before the function did")
	}
}
