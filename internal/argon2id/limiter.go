package argon2id

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// ErrBusy is returned by Limiter.Do when no slot freed up within the wait.
var ErrBusy = errors.New("no password hashing slot free")

// Limiter bounds the argon2id hashes in flight: each holds Params.Memory of
// RAM while it runs, so the bound is what keeps a login storm from
// exhausting memory. A call that cannot get a slot within the wait fails
// with ErrBusy rather than queueing without end; with no wait (0), a call
// waits for its turn until its context ends, and the caller bounds how
// many calls wait. Waiting calls get the slots in the order they asked
// (a channel's waiting senders are served first in, first out). Safe for
// concurrent use.
type Limiter struct {
	sem  chan struct{} // immutable after NewLimiter; a token per hash in flight
	wait time.Duration // immutable after NewLimiter; ≤ 0: no time bound

	inFlight atomic.Int64 // hashes running now
	peak     atomic.Int64 // highest inFlight seen
	done     atomic.Int64 // calls that got a slot
	busy     atomic.Int64 // calls refused with ErrBusy
}

// NewLimiter returns a Limiter of slots hashes in flight (at least one)
// whose callers wait up to wait for a slot; wait ≤ 0: until their context
// ends.
func NewLimiter(slots int, wait time.Duration) *Limiter {
	return &Limiter{sem: make(chan struct{}, max(slots, 1)), wait: wait}
}

// Do runs fn holding a slot. It fails with ErrBusy when no slot frees up
// within the wait, and with ctx's error when ctx ends first.
func (l *Limiter) Do(ctx context.Context, fn func()) error {
	select {
	case l.sem <- struct{}{}:
	default:
		var expired <-chan time.Time // nil: no time bound
		if l.wait > 0 {
			t := time.NewTimer(l.wait)
			defer t.Stop()
			expired = t.C
		}
		select {
		case l.sem <- struct{}{}:
		case <-expired:
			l.busy.Add(1)
			return ErrBusy
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { <-l.sem }()
	n := l.inFlight.Add(1)
	defer l.inFlight.Add(-1)
	for p := l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	l.done.Add(1)
	fn()
	return nil
}

// LimiterStats are a Limiter's counters.
type LimiterStats struct {
	InFlight int64         // calls running now
	Peak     int64         // the most ever running at once (≤ Slots)
	Done     int64         // calls that got a slot
	Busy     int64         // calls refused with ErrBusy
	Slots    int           // the bound
	Wait     time.Duration // how long a call waits for a slot; ≤ 0: until its context ends
}

// Stats returns the current counters.
func (l *Limiter) Stats() LimiterStats {
	return LimiterStats{InFlight: l.inFlight.Load(), Peak: l.peak.Load(), Done: l.done.Load(),
		Busy: l.busy.Load(), Slots: cap(l.sem), Wait: l.wait}
}
