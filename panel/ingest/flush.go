package ingest

import (
	"context"
	"errors"
	"time"

	"github.com/corrosion/corrosion/panel/store"
)

// maxTouched bounds the timelines remembered for trimming at the next prune.
const maxTouched = 100_000

// flush writes what is held in one transaction. When the write fails the
// batch goes back (coalescing with what arrived since) and the error is
// returned for the backoff, unless the database is up and refused the
// batch itself: then it is written license by license so that one bad row
// costs only its own license's messages (dropped, counted and logged).
func (in *Ingester) flush(ctx context.Context) error {
	in.mu.Lock()
	if in.pending.held() == 0 && len(in.pending.messages) == 0 {
		in.mu.Unlock()
		return nil
	}
	b := in.pending.take(in.cfg.SampleEvery)
	in.mu.Unlock()

	err := in.apply(ctx, &b)
	if err == nil {
		return nil
	}
	if !errors.Is(err, store.ErrBatchRefused) {
		in.putBack(b)
		return err
	}
	in.log.Error("ingest: the database refused a batch; writing it license by license", "err", err)
	for _, one := range splitByLicense(b) {
		err := in.apply(ctx, &one)
		switch {
		case err == nil:
		case errors.Is(err, store.ErrBatchRefused):
			in.metrics.dropped.WithLabelValues(dropRefused).Add(float64(rowsOf(one)))
			in.log.Error("ingest: dropped a license's messages the database refuses", "license", firstLicense(one), "err", err)
		default:
			in.putBack(one) // the database went away meanwhile: retry it later
		}
	}
	return nil
}

// putBack returns a batch that could not be written to the pending one.
func (in *Ingester) putBack(b store.Batch) {
	in.mu.Lock()
	dropped := in.pending.putBack(b)
	in.mu.Unlock()
	if dropped > 0 {
		in.metrics.dropped.WithLabelValues(dropPendingFull).Add(float64(dropped))
	}
	in.metrics.flushErrors.Inc()
}

// apply writes one batch and records what it did.
func (in *Ingester) apply(ctx context.Context, b *store.Batch) error {
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, in.cfg.WriteTimeout)
	res, err := in.store.ApplyBatch(wctx, *b)
	cancel()
	if err != nil {
		return err
	}
	committed := time.Now()
	in.metrics.flushSeconds.Observe(committed.Sub(start).Seconds())
	var msgs int64
	for _, n := range b.Messages {
		msgs += n
	}
	in.metrics.batchSize.Observe(float64(msgs))
	for _, r := range b.Heartbeats {
		in.metrics.lag.Observe(max(committed.Sub(r.Heartbeat.Timestamp), 0).Seconds())
	}
	for _, e := range b.Events {
		in.metrics.lag.Observe(max(committed.Sub(e.At), 0).Seconds())
	}
	in.noteUnknown(res.Unknown)
	in.noteTouched(b.Events)
	if in.onCommit != nil {
		in.onCommit(withoutLicenses(b, res.Unknown), committed)
	}
	return nil
}

func (in *Ingester) noteUnknown(unknown map[string]int64) {
	for license, n := range unknown {
		in.metrics.unknown.Add(float64(n))
		if in.firstTime("unknown " + license) {
			in.log.Warn("ingest: messages from a license that is not a panel license (counted, shown to admins)", "license", license)
		}
	}
}

func (in *Ingester) noteTouched(evs []store.Event) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, e := range evs {
		if len(in.touched) >= maxTouched {
			return
		}
		in.touched[store.InstanceKey{License: e.License, Instance: e.Instance}] = struct{}{}
	}
}

// withoutLicenses is b without the rows of the licenses in drop.
func withoutLicenses(b *store.Batch, drop map[string]int64) *store.Batch {
	if len(drop) == 0 {
		return b
	}
	out := &store.Batch{SampleEvery: b.SampleEvery, Messages: b.Messages}
	for _, r := range b.Heartbeats {
		if _, ok := drop[r.License]; !ok {
			out.Heartbeats = append(out.Heartbeats, r)
		}
	}
	for _, e := range b.Events {
		if _, ok := drop[e.License]; !ok {
			out.Events = append(out.Events, e)
		}
	}
	for _, bc := range b.Beacons {
		if _, ok := drop[bc.License]; !ok {
			out.Beacons = append(out.Beacons, bc)
		}
	}
	return out
}

// splitByLicense cuts a batch into one batch per license.
func splitByLicense(b store.Batch) []store.Batch {
	by := map[string]*store.Batch{}
	get := func(l string) *store.Batch {
		if by[l] == nil {
			by[l] = &store.Batch{SampleEvery: b.SampleEvery, Messages: map[string]int64{}}
		}
		return by[l]
	}
	for _, r := range b.Heartbeats {
		get(r.License).Heartbeats = append(get(r.License).Heartbeats, r)
	}
	for _, e := range b.Events {
		get(e.License).Events = append(get(e.License).Events, e)
	}
	for _, bc := range b.Beacons {
		get(bc.License).Beacons = append(get(bc.License).Beacons, bc)
	}
	for l, n := range b.Messages {
		get(l).Messages[l] = n
	}
	out := make([]store.Batch, 0, len(by))
	for _, one := range by {
		out = append(out, *one)
	}
	return out
}

func rowsOf(b store.Batch) int { return len(b.Heartbeats) + len(b.Events) + len(b.Beacons) }

func firstLicense(b store.Batch) string {
	for l := range b.Messages {
		return l
	}
	return ""
}
