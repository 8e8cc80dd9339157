package auth

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/corrosion/corrosion/internal/argon2id"
)

// ErrBusy is returned when every hashing slot stayed taken for the whole
// wait: the panel is under a login storm.
var ErrBusy = errors.New("the panel is busy checking other logins; try again in a moment")

// DefaultHashSlotWait is how long a login waits for a hashing slot.
const DefaultHashSlotWait = 5 * time.Second

// HasherOptions configure a Hasher; zero fields take defaults.
type HasherOptions struct {
	Params        Params        // costs of new hashes; default DefaultParams
	MaxConcurrent int           // hashes in flight; default GOMAXPROCS
	SlotWait      time.Duration // wait for a slot before ErrBusy; default DefaultHashSlotWait
}

// Hasher hashes and verifies passwords with a bound on the argon2id hashes
// in flight: each holds Params.Memory of RAM while it runs, so the bound is
// what keeps a login storm from exhausting memory. A call that cannot get
// a slot within the wait fails with ErrBusy rather than queueing without
// end. Safe for concurrent use.
type Hasher struct {
	params Params            // immutable after NewHasher
	slots  *argon2id.Limiter // immutable after NewHasher; its counters are atomic

	decoyOnce sync.Once // guards decoy
	decoy     string    // a hash verified for unknown users, so timing does not tell names apart
}

// NewHasher returns a Hasher.
func NewHasher(o HasherOptions) *Hasher {
	if o.Params == (Params{}) {
		o.Params = DefaultParams
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = runtime.GOMAXPROCS(0)
	}
	if o.SlotWait <= 0 {
		o.SlotWait = DefaultHashSlotWait
	}
	return &Hasher{params: o.Params, slots: argon2id.NewLimiter(o.MaxConcurrent, o.SlotWait)}
}

// Hash returns the PHC string of a new password (check it with
// CheckNewPassword first).
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	var out string
	var herr error
	if err := h.do(ctx, func() { out, herr = HashPassword(password, h.params) }); err != nil {
		return "", err
	}
	return out, herr
}

// Verify reports whether password matches the stored hash.
func (h *Hasher) Verify(ctx context.Context, password, encoded string) (bool, error) {
	var ok bool
	var verr error
	if err := h.do(ctx, func() { ok, verr = VerifyPassword(password, encoded) }); err != nil {
		return false, err
	}
	return ok, verr
}

// VerifyDecoy spends the time of one verification without a user, so a
// login for an unknown name takes as long as a wrong password.
func (h *Hasher) VerifyDecoy(ctx context.Context, password string) error {
	h.decoyOnce.Do(func() { h.decoy, _ = HashPassword("decoy password for unknown users", h.params) })
	_, err := h.Verify(ctx, password, h.decoy)
	return err
}

// Peak is the most hashes ever in flight at once (≤ the bound).
func (h *Hasher) Peak() int64 { return h.slots.Stats().Peak }

// InFlight is the number of hashes running now.
func (h *Hasher) InFlight() int64 { return h.slots.Stats().InFlight }

// Busy is the number of calls refused with ErrBusy.
func (h *Hasher) Busy() int64 { return h.slots.Stats().Busy }

// do runs fn holding a slot; ErrBusy when none frees up within the wait.
func (h *Hasher) do(ctx context.Context, fn func()) error {
	err := h.slots.Do(ctx, fn)
	if errors.Is(err, argon2id.ErrBusy) {
		return ErrBusy
	}
	return err
}
