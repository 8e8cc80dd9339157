package fleetui

import (
	"context"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/liveness"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/store"
)

// Model bounds.
const (
	seedTimeout   = 2 * time.Second  // one store read while seeding a host
	reseedEvery   = 2 * time.Minute  // refresh the observed interval and label from the store
	learnReseed   = 5 * time.Second  // … this often while the store has not observed the interval yet
	learnWindow   = 5 * time.Minute  // … during a host's first minutes in the model
	unknownRetry  = 30 * time.Second // re-check a license the store did not know
	maxUnknown    = 10000            // remembered unknown licenses; the set is cleared beyond it
	sparkEvery    = 10 * time.Second // one sparkline point per host per this much
	sparkSeedSpan = 10 * time.Minute // samples read when a host is seeded
)

// model is the fleet's live state on one replica: the store's state of a
// license when it was first seen, then every committed agent event applied
// to it. It is owned by the hub's goroutine (livestate calls Apply, Tick
// and Snapshot there, one at a time, and the reads of model_seed.go land
// there): no lock.
type model struct {
	st  Store         // immutable after NewModel; read off the hub's goroutine
	log *slog.Logger  // immutable after NewModel
	sem chan struct{} // bounds the store reads in flight (maxLoads)
	// update hands a store read's result to the hub's goroutine (the
	// hub's Update); nil: the model has no hub and reads inline. Set once
	// by NewLive before the hub runs.
	update       func(ctx context.Context, land func(livestate.View) []livestate.Fragment) error
	hosts        map[string]*liveHost // enabled licenses seeded since start
	unknown      map[string]time.Time // licenses the store did not know, when last checked
	loads        map[string]*load     // store reads in flight, by license
	fleetSeeded  time.Time            // when seedFleet last read every host
	fleetLoading time.Time            // when seedFleet's read in flight started; zero: none
}

// liveHost is one host's live state.
type liveHost struct {
	host     store.Host
	insts    map[string]*store.Instance // nil until loaded (a host seeded for the fleet view only)
	order    []string                   // instance ids, sorted as the store lists them, new ones appended
	spark    []float64
	sparkAt  time.Time
	checked  time.Time // the store was last read
	seeded   time.Time // when the model first read it
	seenAt   time.Time // when the model saw its first heartbeat (zero: seeded as seen)
	changed  time.Time // the host itself last changed (for snapshots)
	stateAt  time.Time // its online state, instance counts or names last changed (for fleet snapshots)
	names    uint64    // hash of its instances' ids, labels and games as last reported (the Servers table shows them)
	instAt   map[string]time.Time
	eventAt  map[string]time.Time // last status event per instance
	shownOn  bool                 // the online state the streams last got
	shownOld string               // the stale text the streams last got
	sent     map[string]uint64    // hash of the last fragment sent per event name and audience (dedupe)
}

// NewModel returns the fleet's live state model without a hub: it reads
// the store inline (tests drive it directly).
func NewModel(st Store, logger *slog.Logger) livestate.Model { return newModel(st, logger) }

func newModel(st Store, logger *slog.Logger) *model {
	if logger == nil {
		logger = slog.Default()
	}
	return &model{st: st, log: logger.With("component", "fleetui.model"), sem: make(chan struct{}, maxLoads),
		hosts: map[string]*liveHost{}, unknown: map[string]time.Time{}, loads: map[string]*load{}}
}

// Live is the live state streams of Deps.Live: a livestate hub fed by this
// package's model. Run it beside the server.
type Live struct {
	*livestate.Hub
	m *model // immutable after NewLive; used only through the hub's Do and Update
}

// NewLive returns the live state hub of the fleet's pages.
func NewLive(cfg livestate.Config, nc *nats.Conn, st Store, logger *slog.Logger, metrics *livestate.Metrics) (*Live, error) {
	m := newModel(st, logger)
	hub, err := livestate.New(cfg, nc, m, logger, metrics)
	if err != nil {
		return nil, err
	}
	m.update = func(ctx context.Context, land func(livestate.View) []livestate.Fragment) error {
		return hub.Update(ctx, func(_ livestate.Model, want livestate.View) []livestate.Fragment { return land(want) })
	}
	return &Live{Hub: hub, m: m}, nil
}

// reseedPeriod is how long the store's observed interval is trusted:
// shortly while it is still the default (the store learns the real one from
// the first gaps), long after.
func (lh *liveHost) reseedPeriod(now time.Time) time.Duration {
	if lh.host.Interval == store.DefaultInterval && now.Sub(lh.seeded) < learnWindow {
		return learnReseed
	}
	return reseedEvery
}

// learning reports whether a host shown online has been silent longer
// than the shortest offline delay while its interval is still the
// default one: the store has probably observed the real interval since
// (a host killed seconds after it started must not stay online for three
// default intervals). Bounded: during learnWindow, every learnReseed.
func (lh *liveHost) learning(now time.Time) bool {
	return lh.shownOn && lh.host.Interval == store.DefaultInterval && now.Sub(lh.seeded) < learnWindow &&
		now.Sub(lh.checked) >= learnReseed && liveness.Silent(lh.host.LastHeartbeat, store.MinInterval, now)
}

// Apply updates the model with one committed agent event and renders
// what changed.
func (m *model) Apply(ctx context.Context, ev livestate.Event, want livestate.View) []livestate.Fragment {
	lh, out := m.ready(ctx, ev.License, ev.Received, want, &ev)
	if lh == nil {
		return out
	}
	return append(out, m.apply(lh, ev, want)...)
}

func (m *model) apply(lh *liveHost, ev livestate.Event, want livestate.View) []livestate.Fragment {
	var set renderSet
	switch ev.Kind {
	case livestate.KindHeartbeat:
		set = lh.heartbeat(ev.Heartbeat)
	case livestate.KindGoingOffline:
		lh.host.GoingOffline = ev.Received
		set = renderSet{host: true, state: true, insts: lh.order}
	case livestate.KindStatus:
		set = lh.status(ev.Instance, ev.Status)
	}
	lh.touch(set, ev.Received)
	return m.render(lh, set, want, ev.Received, true)
}

// Tick re-evaluates every host's online state and stale text; a change
// is rendered (a host falling silent turns offline on open pages).
func (m *model) Tick(ctx context.Context, now time.Time, want livestate.View) []livestate.Fragment {
	var out []livestate.Fragment
	for license, lh := range m.hosts {
		if lh.learning(now) {
			out = append(out, m.read(ctx, license, now, want, nil)...) // the store may have observed its interval by now
		}
		on := lh.host.Seen && lh.host.OnlineAt(now)
		if on == lh.shownOn && staleText(lh.host, on, now) == lh.shownOld {
			continue
		}
		set := renderSet{host: true, state: true, insts: lh.order}
		lh.touch(set, now)
		out = append(out, m.render(lh, set, want, now, true)...)
	}
	return out
}

// Snapshot renders what changed after since for a new stream.
func (m *model) Snapshot(ctx context.Context, sub livestate.Subscription, since time.Time) []livestate.Fragment {
	now := time.Now()
	if sub.View == livestate.ViewFleet {
		out := m.seedFleet(ctx, now)
		for _, lh := range m.hosts {
			if lh.stateAt.After(since) { // telemetry alone comes with the next heartbeat
				set := renderSet{host: true, state: true, fleetNew: lh.seenAt.After(since)}
				out = append(out, m.render(lh, set, livestate.ViewFleet, now, false)...)
			}
		}
		return out
	}
	lh, out := m.ready(ctx, sub.License, now, sub.View, nil) // seeded, so the tick watches it
	if lh == nil || lh.insts == nil {
		return out
	}
	set := renderSet{host: lh.changed.After(since)}
	for _, id := range lh.order {
		if sub.Instance != "" && id != sub.Instance {
			continue
		}
		if set.host || lh.instAt[id].After(since) {
			set.insts = append(set.insts, id)
		}
		if lh.eventAt[id].After(since) {
			set.timeline = append(set.timeline, id)
		}
	}
	return m.render(lh, set, sub.View, now, false)
}

func (lh *liveHost) touch(set renderSet, now time.Time) {
	if set.host {
		lh.changed = now
	}
	if set.state {
		lh.stateAt = now
	}
	for _, id := range set.insts {
		lh.instAt[id] = now
	}
	for _, id := range set.timeline {
		lh.eventAt[id] = now
	}
}

// counts recomputes the host's instance counts by state.
func (lh *liveHost) counts() {
	c := make(map[wire.State]int, len(lh.insts))
	for _, in := range lh.insts {
		c[in.State]++
	}
	lh.host.Counts = c
}
