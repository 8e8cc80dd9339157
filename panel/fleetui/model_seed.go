package fleetui

import (
	"context"
	"errors"
	"time"

	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/store"
)

// The model reads the store off the hub's goroutine: a read runs on a
// goroutine of its own (at most maxLoads at once) and its result lands
// back on the hub's goroutine through Hub.Update, so a slow read of one
// host delays no other host's update. Events of a host whose first read
// is in flight wait for it (at most maxQueued, the oldest dropped: a
// heartbeat carries the host's whole state). A model without a hub (a
// test's) reads inline.

// Bounds of the store reads.
const (
	maxLoads  = 8  // store reads in flight at once
	maxQueued = 64 // events held per host while its first read is in flight
)

// load is a store read in flight for one license.
type load struct {
	events []livestate.Event // arrived meanwhile; applied when it lands
}

// loaded is what a read found.
type loaded struct {
	license string
	at      time.Time
	host    store.Host
	insts   []store.Instance // nil: not read
	samples []store.Sample   // nil: not read
	readAll bool             // insts (and samples when wanted) were read
	err     error
}

// ready returns the license's live state when it can be used now (ev, if
// not nil, applied to it). Otherwise (nobody watches an unseeded host, the
// store did not know it lately, or its first read is in flight) it
// returns nil, queueing ev for the read it starts if needed; out is what a
// read that landed inline rendered.
func (m *model) ready(ctx context.Context, license string, now time.Time, want livestate.View, ev *livestate.Event) (lh *liveHost, out []livestate.Fragment) {
	lh = m.hosts[license]
	switch {
	case lh == nil && want == 0:
		return nil, nil // nobody watches: seeded when a page opens
	case lh != nil && (want == 0 || lh.insts != nil):
		if want != 0 && now.Sub(lh.checked) >= lh.reseedPeriod(now) {
			out = m.read(ctx, license, now, want, nil)
		}
		return lh, out
	}
	if at, ok := m.unknown[license]; ok && now.Sub(at) < unknownRetry {
		return nil, nil
	}
	return nil, m.read(ctx, license, now, want, ev)
}

// read starts a store read of license (unless one is in flight), queueing
// ev (when not nil) to be applied when it lands.
func (m *model) read(ctx context.Context, license string, now time.Time, want livestate.View, ev *livestate.Event) []livestate.Fragment {
	l := m.loads[license]
	if l == nil {
		l = &load{}
		m.loads[license] = l
		lh := m.hosts[license]
		needAll, needSamples := lh == nil || lh.insts == nil, lh == nil
		if ev != nil {
			l.events = append(l.events, *ev)
		}
		return m.async(ctx, want, func(ctx context.Context) func(livestate.View) []livestate.Fragment {
			res := m.fetch(ctx, license, now, needAll, needSamples)
			return func(want livestate.View) []livestate.Fragment { return m.landed(res, want) }
		})
	}
	if ev != nil {
		if len(l.events) >= maxQueued {
			l.events = l.events[1:]
		}
		l.events = append(l.events, *ev)
	}
	return nil
}

// async runs fetch off the hub's goroutine and what it returns on it
// (inline for a model without a hub).
func (m *model) async(ctx context.Context, want livestate.View, fetch func(context.Context) func(livestate.View) []livestate.Fragment) []livestate.Fragment {
	if m.update == nil {
		return fetch(ctx)(want)
	}
	go func() {
		select {
		case m.sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		land := fetch(ctx)
		<-m.sem
		_ = m.update(ctx, land) // fails only when the hub stops
	}()
	return nil
}

// fetch reads a license's host (and, with all, its instances; with
// samples, its recent samples) from the store. It runs off the hub's
// goroutine: it touches nothing of the model but the store.
func (m *model) fetch(ctx context.Context, license string, now time.Time, all, samples bool) loaded {
	ctx, cancel := context.WithTimeout(ctx, seedTimeout)
	defer cancel()
	res := loaded{license: license, at: now}
	if res.host, res.err = m.st.Host(ctx, license); res.err != nil || !all {
		return res
	}
	if res.insts, res.err = m.st.Instances(ctx, license); res.err != nil {
		return res
	}
	if res.insts == nil {
		res.insts = []store.Instance{}
	}
	res.readAll = true
	if samples {
		var err error
		if res.samples, err = m.st.Samples(ctx, license, now.Add(-sparkSeedSpan)); err != nil {
			m.log.Warn("cannot read a host's recent samples", "license", license, "err", err)
		}
	}
	return res
}

// landed applies a read's result and the events that waited for it.
func (m *model) landed(res loaded, want livestate.View) []livestate.Fragment {
	license := res.license
	l := m.loads[license]
	delete(m.loads, license)
	lh := m.hosts[license]
	switch {
	case errors.Is(res.err, store.ErrNotFound):
		delete(m.hosts, license) // deleted or disabled since
		if len(m.unknown) >= maxUnknown {
			clear(m.unknown)
		}
		m.unknown[license] = res.at
		return nil
	case res.err != nil && lh != nil && lh.insts != nil:
		lh.checked = res.at // keep what we have; try again later
	case res.err != nil:
		m.log.Warn("cannot seed a host's live state", "license", license, "err", res.err)
		return nil
	default:
		delete(m.unknown, license)
		if lh == nil {
			lh = newLiveHost(res.host, res.at)
			m.hosts[license] = lh
		}
		if res.samples != nil {
			lh.setSpark(res.samples)
		}
		if res.readAll && lh.insts == nil {
			lh.setInstances(res.insts)
		}
		lh.checked, lh.host.Interval, lh.host.Label = res.at, res.host.Interval, res.host.Label
	}
	var out []livestate.Fragment
	if l != nil {
		for _, ev := range l.events {
			out = append(out, m.apply(lh, ev, want)...)
		}
	}
	return out
}

// newLiveHost is a host as the store had it, without its instances
// (insts nil until read: the fleet view needs none).
func newLiveHost(h store.Host, now time.Time) *liveHost {
	lh := &liveHost{host: h, checked: now, seeded: now,
		instAt: map[string]time.Time{}, eventAt: map[string]time.Time{}, sent: map[string]uint64{}}
	lh.setSpark(h.Samples)
	lh.shownOn = h.Seen && h.OnlineAt(now)
	lh.shownOld = staleText(h, lh.shownOn, now)
	return lh
}

func (lh *liveHost) setInstances(insts []store.Instance) {
	lh.insts, lh.order = make(map[string]*store.Instance, len(insts)), lh.order[:0]
	for i := range insts {
		lh.insts[insts[i].ID] = &insts[i]
		lh.order = append(lh.order, insts[i].ID)
	}
	lh.counts()
}

func (lh *liveHost) setSpark(samples []store.Sample) {
	lh.spark = sparkOf(samples)
	if len(lh.spark) > SparkSamples {
		lh.spark = lh.spark[len(lh.spark)-SparkSamples:]
	}
	if len(samples) > 0 {
		lh.sparkAt = samples[len(samples)-1].At
	}
}

// seedFleet reads every enabled license's host (at most every
// reseedEvery, when a fleet page opens or the hub starts), so that the
// tick also turns hosts offline that have sent nothing since the panel
// started.
func (m *model) seedFleet(ctx context.Context, now time.Time) []livestate.Fragment {
	if now.Sub(m.fleetSeeded) < reseedEvery || !m.fleetLoading.IsZero() {
		return nil
	}
	m.fleetLoading = now
	return m.async(ctx, 0, func(ctx context.Context) func(livestate.View) []livestate.Fragment {
		hosts, err := m.fetchFleet(ctx, now)
		return func(livestate.View) []livestate.Fragment {
			m.seededFleet(hosts, err, now)
			return nil
		}
	})
}

// fetchFleet reads every enabled license's host with its sparkline (off
// the hub's goroutine).
func (m *model) fetchFleet(ctx context.Context, now time.Time) ([]store.Host, error) {
	ctx, cancel := context.WithTimeout(ctx, seedTimeout)
	defer cancel()
	return m.st.Hosts(ctx, store.HostFilter{Spark: SparkSamples, Now: now})
}

// seededFleet installs what fetchFleet read at now, unless a later read
// was installed already (Warm's may land before the hub start's).
func (m *model) seededFleet(hosts []store.Host, err error, now time.Time) {
	if m.fleetLoading.Equal(now) {
		m.fleetLoading = time.Time{}
	}
	if now.Before(m.fleetSeeded) {
		return
	}
	if err != nil {
		m.log.Warn("cannot seed the fleet's live state", "err", err)
		return
	}
	m.fleetSeeded = now
	for _, h := range hosts {
		if lh := m.hosts[h.License]; lh != nil {
			lh.host.Interval, lh.host.Label = h.Interval, h.Label
			continue
		}
		m.hosts[h.License] = newLiveHost(h, now)
		delete(m.unknown, h.License)
	}
}
