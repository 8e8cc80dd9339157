// Package sleep waits for a duration or an instant unless a context ends
// first (as Tailscale's tstime.Sleep): the pause of a retry loop, a ramp or
// a pacing loop that must stop at once on shutdown.
package sleep

import (
	"context"
	"time"
)

// For waits d, or until ctx ends; it reports whether the whole wait
// passed (false: ctx ended). A d of zero or less returns at once, false
// only when ctx has already ended.
func For(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Until is For until the instant t.
func Until(ctx context.Context, t time.Time) bool { return For(ctx, time.Until(t)) }
