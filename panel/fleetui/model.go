package fleetui

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
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
// license when it was first seen, then every agent event applied to it.
// It is owned by the hub's goroutine (livestate calls Apply, Tick and
// Snapshot there, one at a time): no lock.
type model struct {
	st      Store
	log     *slog.Logger
	hosts   map[string]*liveHost // enabled licenses seen since start
	unknown map[string]time.Time // licenses the store did not know, when last checked
}

// liveHost is one host's live state.
type liveHost struct {
	host     store.Host
	insts    map[string]*store.Instance
	order    []string // instance ids, sorted as the store lists them, new ones appended
	spark    []float64
	sparkAt  time.Time
	checked  time.Time // the store was last read
	seeded   time.Time // when the model first read it
	seenAt   time.Time // when the model saw its first heartbeat (zero: seeded as seen)
	changed  time.Time // the host itself last changed (for snapshots)
	instAt   map[string]time.Time
	eventAt  map[string]time.Time // last status event per instance
	shownOn  bool                 // the online state the streams last got
	shownOld string               // the stale text the streams last got
	sent     map[string]uint64    // hash of the last fragment sent per event name and audience (dedupe)
}

// NewModel returns the fleet's live state model for a livestate hub.
func NewModel(st Store, logger *slog.Logger) livestate.Model {
	if logger == nil {
		logger = slog.Default()
	}
	return &model{st: st, log: logger.With("component", "fleetui.model"),
		hosts: map[string]*liveHost{}, unknown: map[string]time.Time{}}
}

// NewLive returns a livestate hub fed by this package's model: the live
// state streams of Deps.Live. Run it beside the server.
func NewLive(cfg livestate.Config, nc *nats.Conn, st Store, logger *slog.Logger, m *livestate.Metrics) (*livestate.Hub, error) {
	return livestate.New(cfg, nc, NewModel(st, logger), logger, m)
}

// host returns the license's live state, seeding it from the store the
// first time (and refreshing its interval now and then) while a page
// watches; nil when the store does not know the license or cannot be read,
// or when nobody watches a license not seeded yet (the store has what
// its events say when one does).
func (m *model) host(ctx context.Context, license string, now time.Time, want livestate.View) *liveHost {
	lh := m.hosts[license]
	if lh != nil && (want == 0 || now.Sub(lh.checked) < lh.reseedPeriod(now)) {
		return lh
	}
	if lh == nil && want == 0 {
		return nil // nobody watches: no store read; seeded when a page opens
	}
	if at, ok := m.unknown[license]; ok && now.Sub(at) < unknownRetry {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, seedTimeout)
	defer cancel()
	h, err := m.st.Host(ctx, license)
	switch {
	case errors.Is(err, store.ErrNotFound):
		delete(m.hosts, license) // deleted or disabled since
		if len(m.unknown) >= maxUnknown {
			clear(m.unknown)
		}
		m.unknown[license] = now
		return nil
	case err != nil && lh != nil:
		lh.checked = now // keep what we have; try again later
		return lh
	case err != nil:
		m.log.Warn("cannot seed a host's live state", "license", license, "err", err)
		return nil
	}
	delete(m.unknown, license)
	if lh != nil {
		lh.checked, lh.host.Interval, lh.host.Label = now, h.Interval, h.Label
		return lh
	}
	lh, err = m.seed(ctx, h, now)
	if err != nil {
		m.log.Warn("cannot seed a host's live state", "license", license, "err", err)
		return nil
	}
	m.hosts[license] = lh
	return lh
}

func (m *model) seed(ctx context.Context, h store.Host, now time.Time) (*liveHost, error) {
	insts, err := m.st.Instances(ctx, h.License)
	if err != nil {
		return nil, err
	}
	samples, err := m.st.Samples(ctx, h.License, now.Add(-sparkSeedSpan))
	if err != nil {
		return nil, err
	}
	lh := &liveHost{host: h, insts: map[string]*store.Instance{}, checked: now, seeded: now,
		instAt: map[string]time.Time{}, eventAt: map[string]time.Time{}, sent: map[string]uint64{}}
	for i := range insts {
		lh.insts[insts[i].ID] = &insts[i]
		lh.order = append(lh.order, insts[i].ID)
	}
	lh.spark = sparkOf(samples)
	if len(lh.spark) > SparkSamples {
		lh.spark = lh.spark[len(lh.spark)-SparkSamples:]
	}
	if len(samples) > 0 {
		lh.sparkAt = samples[len(samples)-1].At
	}
	lh.shownOn = h.Seen && h.OnlineAt(now)
	lh.shownOld = staleText(h, lh.shownOn, now)
	return lh, nil
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

// Apply updates the model with one agent event and renders what changed.
func (m *model) Apply(ctx context.Context, ev livestate.Event, want livestate.View) []livestate.Fragment {
	lh := m.host(ctx, ev.License, ev.Received, want)
	if lh == nil {
		return nil
	}
	var set renderSet
	switch ev.Kind {
	case livestate.KindHeartbeat:
		set = lh.heartbeat(ev.Heartbeat, ev.Received)
	case livestate.KindGoingOffline:
		lh.host.GoingOffline = ev.Received
		set = renderSet{host: true, insts: lh.order}
	case livestate.KindStatus:
		set = lh.status(ev.Instance, ev.Status, ev.Received)
	}
	lh.touch(set, ev.Received)
	return m.render(lh, set, want, ev.Received, true)
}

// Tick re-evaluates every host's online state and stale text; a change
// is rendered (a host falling silent turns offline on open pages).
func (m *model) Tick(ctx context.Context, now time.Time, want livestate.View) []livestate.Fragment {
	var out []livestate.Fragment
	for _, lh := range m.hosts {
		on := lh.host.Seen && lh.host.OnlineAt(now)
		if on == lh.shownOn && staleText(lh.host, on, now) == lh.shownOld {
			continue
		}
		set := renderSet{host: true, insts: lh.order}
		lh.touch(set, now)
		out = append(out, m.render(lh, set, want, now, true)...)
	}
	return out
}

// Snapshot renders what changed after since for a new stream.
func (m *model) Snapshot(ctx context.Context, sub livestate.Subscription, since time.Time) []livestate.Fragment {
	now := time.Now()
	if sub.View == livestate.ViewFleet {
		var out []livestate.Fragment
		for _, lh := range m.hosts {
			if lh.changed.After(since) {
				set := renderSet{host: true, fleetNew: lh.seenAt.After(since)}
				out = append(out, m.render(lh, set, livestate.ViewFleet, now, false)...)
			}
		}
		return out
	}
	lh := m.hosts[sub.License]
	if lh == nil {
		return nil
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
