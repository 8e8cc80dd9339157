package fleetui

import (
	"context"
	"errors"
	"time"

	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/store"
)

// host returns the license's live state, seeding it from the store the
// first time (and refreshing its interval now and then) while a page
// watches; nil when the store does not know the license or cannot be read,
// or when nobody watches a license not seeded yet (the store has what its
// events say when one does).
func (m *model) host(ctx context.Context, license string, now time.Time, want livestate.View) *liveHost {
	lh := m.hosts[license]
	if lh == nil && want == 0 {
		return nil // nobody watches: no store read; seeded when a page opens
	}
	if lh != nil && (want == 0 || lh.insts != nil && now.Sub(lh.checked) < lh.reseedPeriod(now)) {
		return lh
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
	case err != nil && lh != nil && lh.insts != nil:
		lh.checked = now // keep what we have; try again later
		return lh
	case err != nil:
		m.log.Warn("cannot seed a host's live state", "license", license, "err", err)
		return nil
	}
	delete(m.unknown, license)
	if lh == nil {
		lh = newLiveHost(h, now)
		m.hosts[license] = lh
		if err := lh.seedSpark(ctx, m.st, now); err != nil {
			m.log.Warn("cannot read a host's recent samples", "license", license, "err", err)
		}
	}
	lh.checked, lh.host.Interval, lh.host.Label = now, h.Interval, h.Label
	if lh.insts == nil {
		if err := lh.loadInstances(ctx, m.st); err != nil {
			m.log.Warn("cannot read a host's instances", "license", license, "err", err)
			return nil
		}
	}
	return lh
}

// newLiveHost is a host as the store had it, without its instances
// (insts nil until loadInstances: the fleet view needs none).
func newLiveHost(h store.Host, now time.Time) *liveHost {
	lh := &liveHost{host: h, checked: now, seeded: now,
		instAt: map[string]time.Time{}, eventAt: map[string]time.Time{}, sent: map[string]uint64{}}
	lh.setSpark(h.Samples)
	lh.shownOn = h.Seen && h.OnlineAt(now)
	lh.shownOld = staleText(h, lh.shownOn, now)
	return lh
}

func (lh *liveHost) loadInstances(ctx context.Context, st Store) error {
	insts, err := st.Instances(ctx, lh.host.License)
	if err != nil {
		return err
	}
	lh.insts, lh.order = make(map[string]*store.Instance, len(insts)), lh.order[:0]
	for i := range insts {
		lh.insts[insts[i].ID] = &insts[i]
		lh.order = append(lh.order, insts[i].ID)
	}
	lh.counts()
	return nil
}

func (lh *liveHost) seedSpark(ctx context.Context, st Store, now time.Time) error {
	samples, err := st.Samples(ctx, lh.host.License, now.Add(-sparkSeedSpan))
	if err != nil {
		return err
	}
	lh.setSpark(samples)
	return nil
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

// seedFleet reads every enabled license's host once (at most every
// reseedEvery, when a fleet page opens), so that the tick also turns
// hosts offline that have sent nothing since the panel started.
func (m *model) seedFleet(ctx context.Context, now time.Time) {
	if now.Sub(m.fleetSeeded) < reseedEvery {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, seedTimeout)
	defer cancel()
	hosts, err := m.st.Hosts(ctx, store.HostFilter{Spark: SparkSamples, Now: now})
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
