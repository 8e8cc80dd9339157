// Package backoff is the one rule of a wait that doubles: base doubled n
// times, never past a cap, without overflow however large n grows. The
// panel's login lockout, worldsrv's admin console lockout and the NATS
// redial (internal/natsconn) take their periods from it.
package backoff

import "time"

// Doubled is base doubled n times, at most limit (n < 0 counts as 0; a
// base of 0 or less is 0). A base above limit is limit.
func Doubled(base, limit time.Duration, n int) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for range max(n, 0) {
		if d >= limit/2 {
			return limit // the next doubling reaches the cap
		}
		d *= 2
	}
	return min(d, limit)
}
