package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// lease is the cluster-wide login lock: one key per player in a JetStream
// key-value bucket whose bucket-wide TTL (MaxAge, with limit markers) ends
// a lease that nobody released. A per-key TTL is not used: renewing such a
// key with Update removes its expiry.
type lease struct {
	m  *Member
	mu sync.Mutex
	kv jetstream.KeyValue // guarded by mu; nil until the bucket is ready
}

func (l *lease) init(m *Member) { l.m = m }

// run creates the bucket as soon as NATS is reachable.
func (l *lease) run(ctx context.Context) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		if _, err := l.bucket(ctx); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (l *lease) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kv != nil {
		return l.kv, nil
	}
	if !l.m.nc.IsConnected() {
		return nil, ErrNotConnected
	}
	js, err := jetstream.New(l.m.nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, l.m.cfg.RequestTimeout)
	defer cancel()
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:         l.m.subj.leaseBucket(),
		Description:    "ether login locks",
		History:        1,
		TTL:            l.m.cfg.LeaseTTL,
		LimitMarkerTTL: max(l.m.cfg.LeaseTTL, time.Second),
		Storage:        jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("create login lock bucket %s: %w", l.m.subj.leaseBucket(), err)
	}
	l.kv = kv
	return kv, nil
}

// forget drops the bucket handle after the stream vanished (e.g. the NATS
// server lost its store), so the next call recreates it.
func (l *lease) forget(err error) {
	if errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
		l.mu.Lock()
		l.kv = nil
		l.mu.Unlock()
	}
}

func leaseKey(user uint64) string { return "u" + strconv.FormatUint(user, 10) }

// Acquire takes the login lock on user for LeaseTTL. It reports false when
// another holder has it.
func (m *Member) Acquire(ctx context.Context, user uint64) (bool, error) {
	for attempt := 0; ; attempt++ {
		kv, err := m.lease.bucket(ctx)
		if err != nil {
			return false, err
		}
		cctx, cancel := context.WithTimeout(ctx, m.cfg.RequestTimeout)
		_, err = kv.Create(cctx, leaseKey(user), []byte{m.cfg.NodeID})
		cancel()
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, jetstream.ErrKeyExists):
			return false, nil
		}
		m.lease.forget(err)
		if attempt > 0 {
			return false, fmt.Errorf("take login lock of %d: %w", user, err)
		}
	}
}

// Release ends the login lock on user (a no-op when none is held).
func (m *Member) Release(ctx context.Context, user uint64) error {
	kv, err := m.lease.bucket(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.RequestTimeout)
	defer cancel()
	if err := kv.Delete(ctx, leaseKey(user)); err != nil {
		m.lease.forget(err)
		return fmt.Errorf("release login lock of %d: %w", user, err)
	}
	return nil
}
