package session

import (
	"sync/atomic"

	"github.com/corrosion/corrosion/ether/cluster"
)

// counters are the manager's running totals.
type counters struct {
	pms          [8]atomic.Uint64 // atomic; by cluster.PMResult, counted where the PM was sent
	loginAllowed atomic.Uint64    // atomic
	loginDenied  atomic.Uint64    // atomic
	workDropped  atomic.Uint64    // atomic; frames serial refused
}

func (c *counters) pm(r cluster.PMResult) {
	if int(r) < len(c.pms) {
		c.pms[r].Add(1)
	}
}

// Stats are totals since the manager started.
type Stats struct {
	Sessions     int
	PMDelivered  uint64
	PMDropped    map[string]uint64 // by reason: offline, ignored, private_off, not_friend, no_world
	LoginAllowed uint64
	LoginDenied  uint64
	WorkDropped  uint64 // frames dropped because too much work was queued
}

// PMDroppedTotal sums the drops over every reason.
func (s Stats) PMDroppedTotal() uint64 {
	var n uint64
	for _, v := range s.PMDropped {
		n += v
	}
	return n
}

// Stats returns the running totals.
func (m *Manager) Stats() Stats {
	st := Stats{
		Sessions:     m.Count(),
		PMDelivered:  m.stats.pms[cluster.PMDelivered].Load(),
		PMDropped:    map[string]uint64{},
		LoginAllowed: m.stats.loginAllowed.Load(),
		LoginDenied:  m.stats.loginDenied.Load(),
		WorkDropped:  m.stats.workDropped.Load(),
	}
	for r := cluster.PMOffline; r <= cluster.PMNoWorld; r++ {
		st.PMDropped[r.String()] = m.stats.pms[r].Load()
	}
	return st
}
