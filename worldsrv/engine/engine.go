package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// The phases, in the seed's order.
const (
	phaseWorld = iota
	phaseInputs
	phaseNPCs
	phasePlayers
	phaseLogouts
	phaseLogins
	phaseEther
	phaseZones
	phaseInfo
	phaseOutputs
	phaseCleanup
	numPhases
)

var phaseNames = [numPhases]string{"world", "inputs", "npcs", "players", "logouts", "logins",
	"process_ether_inbound", "zones", "info", "outputs", "cleanup"}

// PhaseNames lists the phases in the order a tick runs them.
func PhaseNames() []string { return phaseNames[:] }

// ErrRunning is Run's error when it is called a second time.
var ErrRunning = errors.New("engine: Run called twice")

// authResult is a finished account check.
type authResult struct {
	c   *Client
	acc Account
	err error
}

// Engine is one world's tick engine. See the package doc for its phases,
// queues and threading rule.
type Engine struct {
	cfg      Config          // immutable after New
	log      *slog.Logger    // immutable after New
	world    *terrain.Map    // immutable after New
	spawns   []terrain.Point // immutable after New
	accounts Accounts        // immutable after New
	link     Link            // immutable after New; nil when ether is off
	clock    func() time.Time
	phases   [numPhases]func(now time.Time)
	filter   wordFilter // immutable after New

	accepts  chan *Client    // network → tick (AcceptQueue)
	auths    chan authResult // checkers → tick (MaxAuthInFlight)
	authCtx  context.Context // ends the account checks when Run ends
	stopAuth context.CancelFunc
	shutting atomic.Bool   // BeginShutdown: logins answered 14
	admin    chan adminReq // admin console → tick (AdminQueue)
	stopping chan struct{} // closed by the tick after an admin shutdown
	born     time.Time     // immutable after New
	wake     *wakeup       // immutable after New; released after each tick that queued chunks
	running  atomic.Bool   // Run has been called

	// Owned by the tick goroutine.
	tick          uint64
	clients       []*Client      // admitted, in admission order
	addrs         map[string]int // connections per peerkey (Client.peer)
	authing       int
	authWait      []queuedLogin // logins waiting for an account check slot, in arrival order (may be stale: check state)
	byUser        map[uint64]*player
	players       []*player // by pid (index 0 unused); nil = free
	freePIDs      []uint16  // free pids, popped from the end (lowest last)
	pending       map[uint64]*pendingLogin
	pendingOrder  []*pendingLogin     // pending logins in arrival order
	unauthed      int                 // early pending logins still verifying their passwords
	etherFeatures uint32              // the Features this link's sidecar announced; 0 until it does
	unreleased    map[uint64]struct{} // users whose login lock a lost link's LoginCheck may hold, its LoginRelease owed (releaseLock)
	saves         map[uint64][]byte   // saves not (yet) in ether: ether off, or made while the link was down
	holding       []*player           // players with PMs held for their friend list (may be stale: check byUser)
	tiles         tileIndex           // the info phase's players by tile
	lists         tileLists           // the info phase's lists by tile
	lastNow       time.Time
	handed        bool      // this tick queued a chunk: release the writers after it
	down          countdown // an admin shutdown counting down
	stopAfterTick bool      // the countdown ended: close stopping after this tick

	ring     statsRing
	counters counters
}

// New makes an engine; Run (or Tick, in tests) drives it.
func New(cfg Config, deps Deps) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if err := deps.validate(cfg); err != nil {
		return nil, err
	}
	spawns := deps.Map.Spawns()
	if len(spawns) == 0 {
		return nil, fmt.Errorf("engine deps: the map has no spawn tiles")
	}
	e := &Engine{cfg: cfg, log: deps.Logger, world: deps.Map, spawns: spawns,
		accounts: deps.Accounts, link: deps.Link, clock: deps.Clock,
		filter: newWordFilter(cfg.WordFilter),
		admin:  make(chan adminReq, AdminQueue), stopping: make(chan struct{}), born: time.Now(),
		wake:    newWakeup(),
		accepts: make(chan *Client, cfg.AcceptQueue), auths: make(chan authResult, cfg.MaxAuthInFlight),
		addrs: map[string]int{}, byUser: map[uint64]*player{}, pending: map[uint64]*pendingLogin{},
		unreleased: map[uint64]struct{}{},
		saves:      map[uint64][]byte{}, players: make([]*player, cfg.MaxPlayers+1),
		tiles: newTileIndex(deps.Map.Width(), deps.Map.Height(), cfg.MaxPlayers),
		lists: newTileLists(cfg.MaxPlayers, infoWorkers())}
	if e.log == nil {
		e.log = slog.Default()
	}
	e.log = e.log.With("component", "engine")
	if e.clock == nil {
		e.clock = time.Now
	}
	for pid := cfg.MaxPlayers; pid >= 1; pid-- {
		e.freePIDs = append(e.freePIDs, uint16(pid))
	}
	e.authCtx, e.stopAuth = context.WithCancel(context.Background())
	e.phases = [numPhases]func(time.Time){e.phaseWorld, e.phaseInputs, e.phaseNPCs, e.phasePlayers,
		e.phaseLogouts, e.phaseLogins, e.phaseEther, e.phaseZones, e.phaseInfo, e.phaseOutputs, e.phaseCleanup}
	return e, nil
}

// BeginShutdown makes every later Login answer 14 (shutting down). Safe for
// concurrent use.
func (e *Engine) BeginShutdown() { e.shutting.Store(true) }

// Tick runs one tick at now: every phase in order, each timed. Only one
// goroutine may call it (Run does; tests call it directly).
func (e *Engine) Tick(now time.Time) {
	e.lastNow = now
	start := e.clock()
	var rec tickRecord
	prev := start
	for i, run := range e.phases {
		run(now)
		t := e.clock()
		rec.phases[i] = t.Sub(prev)
		prev = t
	}
	rec.total = prev.Sub(start)
	overrun := rec.total > e.cfg.TickInterval
	if overrun {
		slowest := 0
		for i, d := range rec.phases {
			if d > rec.phases[slowest] {
				slowest = i
			}
		}
		e.log.Warn("tick overran its interval", "tick", e.tick, "took", rec.total,
			"interval", e.cfg.TickInterval, "slowest_phase", phaseNames[slowest], "phase_took", rec.phases[slowest])
	}
	e.ring.add(rec, overrun)
	e.releaseWriters()
	e.counters.players.Store(int64(len(e.byUser)))
	e.counters.pending.Store(int64(len(e.pending)))
	e.counters.clients.Store(int64(len(e.clients)))
	if e.stopAfterTick {
		e.stopAfterTick = false
		close(e.stopping)
	}
}

// releaseWriters wakes the network writers once the tick's phases are
// done (and timed): the outputs phase only queued the chunks. Waking them
// is the network layer's start, not the tick's work, and doing it from
// inside the tick let ~2,000 writers take the other core and preempt the
// tick mid-phase. How long the wake-up takes is Stats.Release.
func (e *Engine) releaseWriters() {
	if !e.handed {
		return
	}
	e.handed = false
	start := e.clock()
	e.wake.release()
	e.ring.addRelease(e.clock().Sub(start))
}

// nextSlot is when the tick after the one started at last should start,
// given that it is now now: last+interval, or, when that has passed (the
// tick ran late), the first slot still ahead, with how many were skipped.
func nextSlot(last time.Time, interval time.Duration, now time.Time) (next time.Time, skipped int) {
	if interval <= 0 {
		return now, 0
	}
	next = last.Add(interval)
	if now.Before(next) {
		return next, 0
	}
	k := int(now.Sub(last) / interval) // slots that are due or past
	return last.Add(time.Duration(k+1) * interval), k
}

// Run ticks every TickInterval until ctx ends, then logs everyone out
// (saved, reason "world shutting down") in one last tick and stops the
// account checks. Ticks never pile up: a late tick's missed slots are
// skipped (counted), never run back to back.
func (e *Engine) Run(ctx context.Context) error {
	if !e.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer e.stopAuth()
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	slot := time.Now()
	for {
		e.Tick(slot)
		next, skipped := nextSlot(slot, e.cfg.TickInterval, time.Now())
		if skipped > 0 {
			e.counters.skipped.Add(uint64(skipped))
		}
		slot = next
		timer.Reset(time.Until(slot))
		select {
		case <-ctx.Done():
			e.BeginShutdown()
			e.logoutAll(time.Now())
			return nil
		case <-timer.C:
		}
	}
}
