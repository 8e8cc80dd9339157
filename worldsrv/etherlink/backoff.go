package etherlink

import (
	"time"

	"github.com/corrosion/corrosion/internal/flagval"
)

// Backoff is the redial policy: the first wait after a failure is Min, each
// further one doubles, capped at Max; a connection that stayed up at least
// Stable restarts the sequence at Min. A connection that is closed sooner
// (a sidecar that refuses our link token closes it at once) does not, so a
// flapping link backs off like a dead one.
type Backoff struct {
	Min, Max, Stable time.Duration
}

// DefaultBackoff is the seed's 1 s → 2 s → 4 s … → 30 s.
var DefaultBackoff = Backoff{Min: time.Second, Max: 30 * time.Second, Stable: 10 * time.Second}

func (b Backoff) withDefaults() Backoff {
	b.Min = flagval.Default(b.Min, DefaultBackoff.Min)
	b.Max = flagval.Default(b.Max, DefaultBackoff.Max)
	b.Stable = flagval.Default(b.Stable, DefaultBackoff.Stable)
	return b
}

// Next is the wait before the next dial, given the previous wait (0 for
// none yet) and how long the last attempt's connection stayed up (0 when
// the dial failed). A pure function: the sequence is tested without timers.
func (b Backoff) Next(prev, upFor time.Duration) time.Duration {
	if upFor >= b.Stable || prev < b.Min {
		return b.Min
	}
	return min(2*prev, b.Max)
}
