package ingest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// subDrainBudget bounds how long shutdown waits for the subscriptions'
// delivered messages to be handled.
const subDrainBudget = 5 * time.Second

// Run subscribes and writes until ctx is cancelled, then drains: it
// returns after the last flush. Subscriptions survive NATS reconnects (the
// connection's options decide how long it retries: the panel's retries
// forever).
//
// Teardown, in this order: the subscriptions drain (the server stops
// sending, messages already delivered are handled), the flusher and pruner
// stop, then one last flush writes what is held (at most DrainTimeout).
func (in *Ingester) Run(ctx context.Context) error {
	subs, err := in.subscribe()
	if err != nil {
		return err
	}
	close(in.ready)
	loops, stop := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { in.flushLoop(loops) })
	wg.Go(func() { in.pruneLoop(loops) })
	in.log.Info("ingest running", "queue", in.cfg.Queue)
	<-ctx.Done()

	in.drainSubs(subs)
	stop()
	wg.Wait()
	final, cancel := context.WithTimeout(context.WithoutCancel(ctx), in.cfg.DrainTimeout)
	defer cancel()
	if err := in.flush(final); err != nil {
		return fmt.Errorf("ingest: last flush failed, %d held rows lost: %w", in.pendingCount(), err)
	}
	return nil
}

func (in *Ingester) subscribe() ([]*nats.Subscription, error) {
	handlers := []struct {
		subject string
		handle  nats.MsgHandler
	}{
		{SubjectHeartbeat, in.onHeartbeat},
		{SubjectGoingOffline, in.onGoingOffline},
		{SubjectStatus, in.onStatus},
	}
	var subs []*nats.Subscription
	for _, h := range handlers {
		sub, err := in.nc.QueueSubscribe(h.subject, in.cfg.Queue, h.handle)
		if err != nil {
			for _, s := range subs {
				_ = s.Unsubscribe()
			}
			return nil, fmt.Errorf("ingest: subscribe %s: %w", h.subject, err)
		}
		// Hold bursts (5,000 agents reconnecting at once) rather than drop.
		_ = sub.SetPendingLimits(1<<20, 256<<20)
		subs = append(subs, sub)
	}
	// Flush only on a live connection: with NATS down a Flush waits out its
	// whole timeout, and the subscriptions are sent on reconnect anyway.
	if !in.nc.IsConnected() {
		return subs, nil
	}
	if err := in.nc.FlushTimeout(2 * time.Second); err != nil && in.nc.IsConnected() {
		return nil, fmt.Errorf("ingest: subscribe: %w", err)
	}
	return subs, nil
}

// drainSubs drains the subscriptions and waits (bounded) until every
// message they had was handled.
func (in *Ingester) drainSubs(subs []*nats.Subscription) {
	timeout := time.NewTimer(subDrainBudget)
	defer timeout.Stop()
	for _, s := range subs {
		closed := s.StatusChanged(nats.SubscriptionClosed)
		if err := s.Drain(); err != nil {
			_ = s.Unsubscribe()
			continue
		}
		select {
		case <-closed:
		case <-timeout.C:
			in.log.Warn("ingest: subscriptions did not drain in time", "budget", subDrainBudget)
			return
		}
	}
}

// flushLoop flushes every FlushEvery, or at once when a batch fills; after
// a failed flush it waits out a doubling backoff (RetryMin … RetryMax),
// while messages keep coalescing. An outage is logged when it starts and
// when it ends.
func (in *Ingester) flushLoop(ctx context.Context) {
	tick := time.NewTicker(in.cfg.FlushEvery)
	defer tick.Stop()
	var retryAt, failingSince time.Time
	backoff := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-in.kick:
		}
		if time.Now().Before(retryAt) {
			continue
		}
		if err := in.flush(ctx); err != nil {
			if failingSince.IsZero() {
				failingSince = time.Now()
				in.log.Warn("ingest: write failed; holding the fleet state and retrying", "held", in.pendingCount(), "err", err)
			}
			backoff = min(max(backoff*2, in.cfg.RetryMin), in.cfg.RetryMax)
			retryAt = time.Now().Add(backoff)
			continue
		}
		if !failingSince.IsZero() {
			in.log.Info("ingest: writing again", "failed_for", time.Since(failingSince).Round(time.Millisecond))
		}
		backoff, retryAt, failingSince = 0, time.Time{}, time.Time{}
	}
}
