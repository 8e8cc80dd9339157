package argon2id

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A storm of calls never has more in flight than the bound, and every call
// gets its turn when the wait is long enough.
func TestLimiter_BoundsInFlight(t *testing.T) {
	l := NewLimiter(2, time.Minute)
	enc, err := Hash("pw", cheap)
	if err != nil {
		t.Fatal(err)
	}
	var running, over atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			err := l.Do(context.Background(), func() {
				if running.Add(1) > 2 {
					over.Add(1)
				}
				defer running.Add(-1)
				if ok, err := Verify("pw", enc); !ok || err != nil {
					over.Add(1)
				}
			})
			if err != nil {
				over.Add(1)
			}
		})
	}
	wg.Wait()
	st := l.Stats()
	if over.Load() != 0 || st.Peak < 1 || st.Peak > 2 || st.Done != 16 || st.InFlight != 0 || st.Busy != 0 {
		t.Fatalf("%d calls went wrong, stats %+v; want peak 1..2, 16 done", over.Load(), st)
	}
	if st.Slots != 2 || st.Wait != time.Minute {
		t.Fatalf("stats %+v do not report the bound", st)
	}
}

// holdSlot takes one of l's slots until the returned release is called;
// release returns once the slot is free again.
func holdSlot(t *testing.T, l *Limiter) (release func()) {
	t.Helper()
	held, hold, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() { done <- l.Do(context.Background(), func() { close(held); <-hold }) }()
	<-held
	return func() {
		close(hold)
		if err := <-done; err != nil {
			t.Errorf("holding call: %v", err)
		}
	}
}

// A call that cannot get a slot within the wait fails with ErrBusy and is
// counted; one whose context ends first gets the context's error.
func TestLimiter_BusyAndCancel(t *testing.T) {
	l := NewLimiter(1, 10*time.Millisecond)
	release := holdSlot(t, l)
	ran := false
	if err := l.Do(context.Background(), func() { ran = true }); !errors.Is(err, ErrBusy) || ran || l.Stats().Busy != 1 {
		t.Fatalf("do with no free slot = %v (ran %v, stats %+v), want ErrBusy counted", err, ran, l.Stats())
	}
	long := NewLimiter(1, time.Minute)
	releaseLong := holdSlot(t, long)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := long.Do(ctx, func() { ran = true }); !errors.Is(err, context.Canceled) || ran || long.Stats().Busy != 0 {
		t.Fatalf("do with a cancelled context = %v (ran %v, stats %+v), want context.Canceled", err, ran, long.Stats())
	}
	releaseLong()
	release()
	if err := l.Do(context.Background(), func() { ran = true }); err != nil || !ran {
		t.Fatalf("do with a free slot = %v (ran %v)", err, ran)
	}
}

// With no wait, a call waits for a slot as long as its context lasts, never
// ErrBusy: it gets the slot when one frees up, or its context's error.
func TestLimiter_NoWait_WaitsUntilContextEnds(t *testing.T) {
	l := NewLimiter(1, 0)
	release := holdSlot(t, l)
	got := make(chan error, 1)
	ran := false
	go func() { got <- l.Do(context.Background(), func() { ran = true }) }()
	select {
	case err := <-got:
		t.Fatalf("do with no free slot and no wait returned %v at once, want it to wait", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	if err := <-got; err != nil || !ran || l.Stats().Busy != 0 {
		t.Fatalf("do after the slot freed = %v (ran %v, stats %+v), want it run", err, ran, l.Stats())
	}
	release = holdSlot(t, l)
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := l.Do(ctx, func() {}); !errors.Is(err, context.DeadlineExceeded) || l.Stats().Busy != 0 {
		t.Fatalf("do with an ending context = %v (stats %+v), want its deadline, not ErrBusy", err, l.Stats())
	}
}
