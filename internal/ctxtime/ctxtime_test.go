package ctxtime_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/ctxtime"
	"github.com/corrosion/corrosion/internal/poll"
)

// run starts loop with an fn that counts its calls; stop cancels loop's
// context and waits for loop to return.
func run(loop func(context.Context, time.Duration, func(context.Context)), d time.Duration) (calls *atomic.Int64, stop func()) {
	calls = new(atomic.Int64)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		loop(ctx, d, func(context.Context) { calls.Add(1) })
	}()
	return calls, func() { cancel(); <-done }
}

func TestEvery_CallsUntilTheContextEnds(t *testing.T) {
	calls, stop := run(ctxtime.Every, time.Millisecond)
	poll.True(t, 10*time.Second, "three calls", func() bool { return calls.Load() >= 3 })
	stop() // returns: Every ended with its context
}

func TestEvery_FirstCallAfterTheInterval(t *testing.T) {
	calls, stop := run(ctxtime.Every, time.Hour)
	stop()
	if got := calls.Load(); got != 0 {
		t.Fatalf("Every called fn %d times before its first interval", got)
	}
}

func TestNowAndEvery_CallsAtOnce(t *testing.T) {
	calls, stop := run(ctxtime.NowAndEvery, time.Hour)
	poll.True(t, 10*time.Second, "the first call", func() bool { return calls.Load() == 1 })
	stop()
	if got := calls.Load(); got != 1 {
		t.Fatalf("NowAndEvery called fn %d times in its first hour", got)
	}
}

func TestNowAndEvery_EndedContextCallsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ctxtime.NowAndEvery(ctx, time.Millisecond, func(context.Context) { t.Fatal("called after the end") })
}

func TestSleep(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want bool
	}{
		{"waits out d", context.Background(), time.Millisecond, true},
		{"nothing to wait", context.Background(), 0, true},
		{"context ended first", ended, time.Hour, false},
		{"context ended, nothing to wait", ended, -time.Second, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ctxtime.Sleep(tc.ctx, tc.d); got != tc.want {
				t.Errorf("Sleep(%v) = %v, want %v", tc.d, got, tc.want)
			}
		})
	}
}
