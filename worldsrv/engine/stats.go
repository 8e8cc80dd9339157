package engine

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// Timing is a duration's distribution over the stats window.
type Timing struct {
	P50, P99, Max time.Duration
}

// PhaseTiming is one phase's Timing.
type PhaseTiming struct {
	Name string
	Timing
}

// Stats is a snapshot of the engine for /status and /metrics: totals since
// New, and timings over the last 100 ticks.
type Stats struct {
	Ticks    uint64 // ticks run
	Overruns uint64 // ticks that took longer than the interval
	Skipped  uint64 // tick slots skipped because a tick ran late
	Window   int    // ticks the timings cover (≤ 100)
	Tick     Timing // the whole tick
	Phases   []PhaseTiming
	// Release is waking the network writers after a tick (not part of
	// Tick: the writers run then, in the time between ticks).
	Release Timing
	Players int // online
	Pending int // logins waiting for ether
	Clients int // connections admitted and not yet released
	// Logins counts login answers by code (index = proto.LoginCode).
	Logins          [16]uint64
	SlowDisconnects uint64 // clients disconnected for a full send queue
	Floods          uint64 // clients disconnected for a full inbound queue
	Idle            uint64 // clients disconnected for silence
	BadFrames       uint64 // a first frame that was not Login
	AcceptBusy      uint64 // Attach refused: accept queue full
	EtherEvents     uint64 // sidecar events handled
	BadSaves        uint64 // saves that did not decode (player started at a spawn)
	SavesSent       uint64 // PlayerSaveRequests handed to the sidecar link
	SavesAcked      uint64 // PlayerSaveAcks the engine handled
}

// counters are the engine's totals, written by the tick (and Deliver,
// Attach) and read by Stats.
type counters struct {
	logins                    [16]atomic.Uint64
	slow, idle, badFrames     atomic.Uint64
	acceptBusy, etherEvents   atomic.Uint64
	badSaves, skipped, floods atomic.Uint64
	savesSent, savesAcked     atomic.Uint64
	players, pending, clients atomic.Int64
}

// tickRecord is one tick's measured durations.
type tickRecord struct {
	total  time.Duration
	phases [numPhases]time.Duration
}

// statsRing keeps the last statsWindow ticks.
type statsRing struct {
	mu       sync.Mutex
	recs     [statsWindow]tickRecord    // guarded by mu
	releases [statsWindow]time.Duration // guarded by mu: writer wake-ups, a ring of their own
	nrel     int                        // guarded by mu: wake-ups held
	nextRel  int                        // guarded by mu: slot of the next wake-up
	n        int                        // guarded by mu: records held
	next     int                        // guarded by mu: slot of the next record
	ticks    uint64                     // guarded by mu
	overruns uint64                     // guarded by mu
}

func (r *statsRing) add(rec tickRecord, overrun bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs[r.next] = rec
	r.next = (r.next + 1) % statsWindow
	r.n = min(r.n+1, statsWindow)
	r.ticks++
	if overrun {
		r.overruns++
	}
}

func (r *statsRing) addRelease(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.releases[r.nextRel] = d
	r.nextRel = (r.nextRel + 1) % statsWindow
	r.nrel = min(r.nrel+1, statsWindow)
}

// timing is the distribution of the values pick returns, nearest rank.
func timing(recs []tickRecord, pick func(*tickRecord) time.Duration) Timing {
	if len(recs) == 0 {
		return Timing{}
	}
	v := make([]time.Duration, len(recs))
	for i := range recs {
		v[i] = pick(&recs[i])
	}
	slices.Sort(v)
	rank := func(p int) time.Duration { return v[max(0, (p*len(v)+99)/100-1)] }
	return Timing{P50: rank(50), P99: rank(99), Max: v[len(v)-1]}
}

// Stats returns the engine's snapshot. Safe for concurrent use.
func (e *Engine) Stats() Stats {
	r := &e.ring
	r.mu.Lock()
	recs := slices.Clone(r.recs[:r.n])
	s := Stats{Ticks: r.ticks, Overruns: r.overruns, Window: r.n}
	rel := make([]tickRecord, r.nrel)
	for i, d := range r.releases[:r.nrel] {
		rel[i].total = d
	}
	r.mu.Unlock()
	s.Release = timing(rel, func(t *tickRecord) time.Duration { return t.total })
	s.Tick = timing(recs, func(t *tickRecord) time.Duration { return t.total })
	s.Phases = make([]PhaseTiming, numPhases)
	for i := range numPhases {
		s.Phases[i] = PhaseTiming{Name: phaseNames[i],
			Timing: timing(recs, func(t *tickRecord) time.Duration { return t.phases[i] })}
	}
	c := &e.counters
	for i := range s.Logins {
		s.Logins[i] = c.logins[i].Load()
	}
	s.Skipped, s.SlowDisconnects, s.Idle = c.skipped.Load(), c.slow.Load(), c.idle.Load()
	s.BadFrames, s.AcceptBusy, s.EtherEvents = c.badFrames.Load(), c.acceptBusy.Load(), c.etherEvents.Load()
	s.BadSaves = c.badSaves.Load()
	s.SavesSent, s.SavesAcked = c.savesSent.Load(), c.savesAcked.Load()
	s.Players, s.Pending, s.Clients = int(c.players.Load()), int(c.pending.Load()), int(c.clients.Load())
	s.Floods = c.floods.Load()
	return s
}

// LoginCount is Stats().Logins[code], for readers of one code.
func (s Stats) LoginCount(code proto.LoginCode) uint64 { return s.Logins[code&15] }
