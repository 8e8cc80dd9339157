package reachui

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/ctxtime"
	"github.com/corrosion/corrosion/panel/reach"
	"github.com/corrosion/corrosion/panel/store"
)

// Defaults of an Auto.
const (
	// DefaultAfterStart is how long after an instance reports running the
	// panel probes it: a game that reports running before it binds its
	// query port gets a moment.
	DefaultAfterStart = 5 * time.Second
	// autoQueue bounds the starts waiting for their probe.
	autoQueue = 256
	// autoParallel bounds the automatic probes running at once.
	autoParallel = 8
)

// Auto probes each instance after it starts: ingest's commit hook hands
// it every committed batch (Committed), and each status event of a state
// going to running queues that instance's probe. Ingest runs in one
// replica's queue group per batch, so each start is probed once across
// the replicas. The reach.Prober's own limits apply (one probe per
// instance at a time, one per reach.DefaultMinInterval): a start within
// them is not probed again.
//
// Drop policy: the queue holds autoQueue starts; a start arriving when it
// is full is dropped and logged (the operator can still click). Committed
// never blocks ingest.
type Auto struct {
	st         Store         // immutable
	pr         *reach.Prober // immutable
	afterStart time.Duration // immutable
	log        *slog.Logger  // immutable
	queue      chan started  // starts waiting for their probe, in arrival order
	// Probed, when set, is called after each automatic probe (tests).
	probed func(license, id string, p store.Probe, err error) // immutable after NewAuto
}

type started struct {
	license, id string
	due         time.Time
}

// AutoOptions configures an Auto.
type AutoOptions struct {
	// AfterStart is the wait between the running state and the probe; 0
	// is DefaultAfterStart, negative probes at once.
	AfterStart time.Duration
	// Probed, when set, is called after each automatic probe.
	Probed func(license, id string, p store.Probe, err error)
	Logger *slog.Logger
}

// NewAuto returns an Auto; Run works its queue.
func NewAuto(st Store, pr *reach.Prober, o AutoOptions) *Auto {
	if o.AfterStart == 0 {
		o.AfterStart = DefaultAfterStart
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Auto{st: st, pr: pr, afterStart: max(o.AfterStart, 0), log: o.Logger.With("component", "reach"),
		queue: make(chan started, autoQueue), probed: o.Probed}
}

// Committed queues a probe for every status event of b whose state is
// running. It never blocks.
func (a *Auto) Committed(b *store.Batch, committed time.Time) {
	for _, e := range b.Events {
		if e.State != wire.StateRunning {
			continue
		}
		select {
		case a.queue <- started{license: e.License, id: e.Instance, due: committed.Add(a.afterStart)}:
		default:
			a.log.Warn("inbound probe after start dropped: too many starts waiting", "license", e.License, "instance", e.Instance)
		}
	}
}

// Run probes the queued starts, each when due (in arrival order, so due
// times only grow), at most autoParallel at once (the prober bounds the
// ports in flight), until ctx ends; it returns once its probes have.
func (a *Auto) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	sem := make(chan struct{}, autoParallel)
	for {
		var s started
		select {
		case <-ctx.Done():
			return nil
		case s = <-a.queue:
		}
		if !ctxtime.Sleep(ctx, time.Until(s.due)) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case sem <- struct{}{}:
		}
		wg.Go(func() {
			defer func() { <-sem }()
			a.probe(ctx, s)
		})
	}
}

// probe runs one automatic probe. Nothing to probe (no address, no
// ports), busy and rate limited are not failures: nothing is stored.
func (a *Auto) probe(ctx context.Context, s started) {
	p, err := Probe(ctx, a.st, a.pr, s.license, s.id)
	switch {
	case err == nil:
		a.log.Info("inbound probe after start", "license", s.license, "instance", s.id, "verdict", p.Verdict)
	case errors.Is(err, reach.ErrInvalid), errors.Is(err, reach.ErrBusy), errors.Is(err, reach.ErrRateLimited),
		errors.Is(err, store.ErrNotFound):
		a.log.Debug("no inbound probe after start", "license", s.license, "instance", s.id, "why", err)
	default:
		a.log.Warn("inbound probe after start failed", "license", s.license, "instance", s.id, "err", err)
	}
	if a.probed != nil {
		a.probed(s.license, s.id, p, err)
	}
}
