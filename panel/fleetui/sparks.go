package fleetui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/store"
)

// The fleet page's sparklines are the store's most expensive read (the
// recent samples of every host). The live model holds the same points for
// every host once a fleet page has opened its stream (seedFleet read them
// from the store, heartbeats have added to them since), so the page takes
// them from there when it can, and from the store for the hosts the model
// does not hold.

// Warm seeds the live model with the whole fleet now, as the hub's start
// and the first fleet page's stream do (at most every 2 minutes), and
// returns when it is done. It reads the store on the caller's goroutine
// and waits (until ctx ends) for the hub's Run to start. Tests and
// benchmarks use it to know the model is warm.
func (l *Live) Warm(ctx context.Context) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := l.Do(ctx, func(livestate.Model) {})
		if err == nil {
			break
		}
		if !errors.Is(err, livestate.ErrNotRunning) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	now := time.Now() // after the hub's start: newer than its own read, which then lands in vain
	hosts, err := l.m.fetchFleet(ctx, now)
	return l.Do(ctx, func(livestate.Model) { l.m.seededFleet(hosts, err, now) })
}

// Start starts seeding the model with the whole fleet when the hub starts,
// so the first fleet page already reads its sparklines from memory.
func (m *model) Start(ctx context.Context) { m.seedFleet(ctx, time.Now()) }

// sparks returns the sparkline points of the licenses the live model
// holds, and whether it holds the fleet's (it was seeded).
func (l *Live) sparks(ctx context.Context, licenses []string) (map[string][]float64, bool, error) {
	var out map[string][]float64
	var ready bool
	err := l.Do(ctx, func(livestate.Model) { out, ready = l.m.sparks(licenses), !l.m.fleetSeeded.IsZero() })
	return out, ready, err
}

// reseedFleet makes the next fleet stream read the fleet again.
func (l *Live) reseedFleet(ctx context.Context) error {
	return l.Do(ctx, func(livestate.Model) { l.m.fleetSeeded = time.Time{} })
}

// liveSparksReady reports whether the live model holds the fleet's
// sparklines.
func (f *Feature) liveSparksReady(ctx context.Context) bool {
	if f.d.Live == nil {
		return false
	}
	_, ready, err := f.d.Live.sparks(ctx, nil)
	return err == nil && ready
}

// liveSparks fills each host's Samples with its sparkline points: from
// the live model, else (a license it does not hold) from the store.
func (f *Feature) liveSparks(ctx context.Context, hosts []store.Host, now time.Time) error {
	ids := make([]string, len(hosts))
	for i, h := range hosts {
		ids[i] = h.License
	}
	sparks, _, err := f.d.Live.sparks(ctx, ids)
	if err != nil {
		return fmt.Errorf("fleet: sparklines: %w", err)
	}
	var missing []string
	for i := range hosts {
		pts, ok := sparks[hosts[i].License]
		if !ok {
			missing = append(missing, hosts[i].License)
			continue
		}
		hosts[i].Samples = make([]store.Sample, len(pts))
		for k := range pts {
			hosts[i].Samples[k].CPUPercent = &pts[k]
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if len(missing)*10 > len(hosts) { // the fleet grew since the model read it: the next fleet stream re-reads it
		_ = f.d.Live.reseedFleet(ctx)
	}
	rest, err := f.d.Store.Hosts(ctx, store.HostFilter{Licenses: missing, Spark: SparkSamples, Now: now})
	if err != nil {
		return fmt.Errorf("fleet: %w", err)
	}
	byID := make(map[string][]store.Sample, len(rest))
	for _, h := range rest {
		byID[h.License] = h.Samples
	}
	for i := range hosts {
		if s, ok := byID[hosts[i].License]; ok {
			hosts[i].Samples = s
		}
	}
	return nil
}

// sparks copies the sparkline points of the licenses the model holds.
func (m *model) sparks(licenses []string) map[string][]float64 {
	out := make(map[string][]float64, len(licenses))
	for _, l := range licenses {
		if lh := m.hosts[l]; lh != nil {
			out[l] = append([]float64(nil), lh.spark...)
		}
	}
	return out
}
