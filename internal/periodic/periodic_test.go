package periodic_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/periodic"
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
	calls, stop := run(periodic.Every, time.Millisecond)
	poll.True(t, 10*time.Second, "three calls", func() bool { return calls.Load() >= 3 })
	stop() // returns: Every ended with its context
}

func TestEvery_FirstCallAfterTheInterval(t *testing.T) {
	calls, stop := run(periodic.Every, time.Hour)
	stop()
	if got := calls.Load(); got != 0 {
		t.Fatalf("Every called fn %d times before its first interval", got)
	}
}

func TestNowAndEvery_CallsAtOnce(t *testing.T) {
	calls, stop := run(periodic.NowAndEvery, time.Hour)
	poll.True(t, 10*time.Second, "the first call", func() bool { return calls.Load() == 1 })
	stop()
	if got := calls.Load(); got != 1 {
		t.Fatalf("NowAndEvery called fn %d times in its first hour", got)
	}
}

func TestNowAndEvery_EndedContextCallsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	periodic.NowAndEvery(ctx, time.Millisecond, func(context.Context) { t.Fatal("called after the end") })
}
