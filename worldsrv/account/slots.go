package account

import (
	"context"
	"errors"
	"time"

	"github.com/corrosion/corrosion/internal/argon2id"
)

// do runs fn holding a hashing slot. It fails with ErrBusy when no slot
// frees up within HashSlotWait (when set), and with ctx's error when ctx
// ends first.
func (s *Store) do(ctx context.Context, fn func()) error {
	err := s.slots.Do(ctx, fn)
	if errors.Is(err, argon2id.ErrBusy) {
		return ErrBusy
	}
	return err
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
	st := s.slots.Stats()
	return Stats{
		HashesInFlight: st.InFlight,
		PeakHashes:     st.Peak,
		Hashes:         st.Done,
		Busy:           st.Busy,
		MaxConcurrent:  st.Slots,
		HashSlotWait:   st.Wait,
	}
}
