package account

import (
	"context"
	"sync/atomic"
	"time"
)

// hashSlots bounds the argon2id hashes in flight: each holds Params.Memory
// of RAM for its duration, so the bound is what keeps a login storm from
// exhausting memory. A login that cannot get a slot within wait fails with
// ErrBusy rather than queueing without end.
type hashSlots struct {
	sem  chan struct{} // immutable after New; a token per hash in flight
	wait time.Duration // immutable after New

	inFlight atomic.Int64 // hashes running now
	peak     atomic.Int64 // highest inFlight seen
	hashes   atomic.Int64 // hashes computed
	busy     atomic.Int64 // logins refused with ErrBusy
}

func newHashSlots(n int, wait time.Duration) *hashSlots {
	return &hashSlots{sem: make(chan struct{}, n), wait: wait}
}

// do runs fn holding a slot. It fails with ErrBusy when no slot frees up
// within the wait, and with ctx's error when ctx ends first.
func (h *hashSlots) do(ctx context.Context, fn func()) error {
	select {
	case h.sem <- struct{}{}:
	default:
		t := time.NewTimer(h.wait)
		defer t.Stop()
		select {
		case h.sem <- struct{}{}:
		case <-t.C:
			h.busy.Add(1)
			return ErrBusy
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { <-h.sem }()
	n := h.inFlight.Add(1)
	defer h.inFlight.Add(-1)
	for p := h.peak.Load(); n > p && !h.peak.CompareAndSwap(p, n); p = h.peak.Load() {
	}
	h.hashes.Add(1)
	fn()
	return nil
}

// Stats are the store's hashing counters, for /metrics and /status.
type Stats struct {
	HashesInFlight int64 // argon2id hashes running now
	PeakHashes     int64 // the most ever running at once (≤ MaxConcurrentHashes)
	Hashes         int64 // hashes computed (logins, registrations, decoys)
	Busy           int64 // logins refused with ErrBusy
	MaxConcurrent  int   // the bound
	HashSlotWait   time.Duration
}

// Stats returns the current counters.
func (s *Store) Stats() Stats {
	return Stats{
		HashesInFlight: s.slots.inFlight.Load(),
		PeakHashes:     s.slots.peak.Load(),
		Hashes:         s.slots.hashes.Load(),
		Busy:           s.slots.busy.Load(),
		MaxConcurrent:  cap(s.slots.sem),
		HashSlotWait:   s.slots.wait,
	}
}
