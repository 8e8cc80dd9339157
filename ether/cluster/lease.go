package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// MinServerVersion is the oldest nats-server the login lock is known to
// work on (Debian 12 ships 2.9.10). On an older server the lock reports
// itself unavailable and login checks are denied.
const MinServerVersion = "2.9.0"

const (
	lockRetry   = 500 * time.Millisecond // bucket not ready: try again after
	lockRecheck = 30 * time.Second       // bucket ready: re-apply its config (raise replicas) after
)

// lease is the cluster-wide login lock: one key per player in a JetStream
// key-value bucket whose bucket-wide TTL (MaxAge) ends a lease that nobody
// released. A per-key TTL is not used: renewing such a key with Update
// removes its expiry. Limit markers (nats-server ≥ 2.11, JetStream API
// level 1) are used where the server has them and left out where it has
// not (2.9, 2.10): MaxAge alone expires a lock either way.
//
// Replicas: Config.LockReplicas, or by default 3 in a NATS cluster (stepping
// down while JetStream has too few servers to place them) and 1 on a lone
// server. An existing bucket is never lowered and is raised when it has
// fewer; the periodic recheck raises it once missing servers are back.
type lease struct {
	m *Member // immutable after init

	create sync.Mutex // serialises bucket creation; taken before mu

	mu       sync.Mutex
	kv       jetstream.KeyValue // guarded by mu; nil until the bucket is ready
	spec     bucketSpec         // guarded by mu; the ready bucket's
	broken   error              // guarded by mu; why the lock failed last, nil once it works
	reported string             // guarded by mu; the last failure logged, to log each once
}

// bucketSpec is what ether chooses for the bucket.
type bucketSpec struct {
	replicas int
	markers  bool // limit markers
}

// LockState is the login lock's state, for health and metrics.
type LockState struct {
	Available bool   // the cluster-wide lock works
	Reason    string // why not, when !Available
	Replicas  int    // the bucket's replicas; 0 until it exists
}

// String is "ok" or "unavailable: <reason>".
func (s LockState) String() string {
	if s.Available {
		return "ok"
	}
	return "unavailable: " + s.Reason
}

// LockState reports whether the cluster-wide login lock works.
func (m *Member) LockState() LockState {
	l := &m.lease
	l.mu.Lock()
	defer l.mu.Unlock()
	st := LockState{Replicas: l.spec.replicas}
	switch {
	case !m.nc.IsConnected():
		st.Reason = "not connected to NATS (login checks use a node-local lock)"
	case l.broken != nil:
		st.Reason = l.broken.Error()
	case l.kv == nil:
		st.Reason = "login lock bucket not created yet"
	default:
		st.Available = true
	}
	return st
}

func (l *lease) init(m *Member) { l.m = m }

// run creates the bucket as soon as NATS is reachable, then re-applies its
// configuration now and then.
func (l *lease) run(ctx context.Context) {
	for {
		wait := lockRecheck
		if err := l.ensure(ctx); err != nil {
			wait = lockRetry
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// bucket is the ready bucket, made now if need be. Concurrent callers
// wait for one attempt rather than each making their own.
func (l *lease) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	if kv := l.ready(); kv != nil {
		return kv, nil
	}
	l.create.Lock()
	defer l.create.Unlock()
	if kv := l.ready(); kv != nil { // made while we waited
		return kv, nil
	}
	if err := l.ensureLocked(ctx); err != nil {
		return nil, err
	}
	return l.ready(), nil
}

func (l *lease) ready() jetstream.KeyValue {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.kv
}

// ensure creates the bucket, or updates it when it exists. A failed update
// of a working bucket keeps it.
func (l *lease) ensure(ctx context.Context) error {
	l.create.Lock()
	defer l.create.Unlock()
	return l.ensureLocked(ctx)
}

// ensureLocked is ensure with l.create held.
func (l *lease) ensureLocked(ctx context.Context) error {
	if !l.m.nc.IsConnected() {
		return ErrNotConnected
	}
	kv, spec, err := l.open(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		if l.kv == nil {
			l.failedLocked(err)
		}
		return err
	}
	if l.kv == nil || spec != l.spec {
		l.m.log.Info("login lock bucket ready", "bucket", l.m.subj.leaseBucket(), "replicas", spec.replicas,
			"limit_markers", spec.markers, "nats_server", l.m.nc.ConnectedServerVersion())
	}
	l.kv, l.spec, l.broken, l.reported = kv, spec, nil, ""
	return nil
}

// failedLocked records why the lock does not work, logging each new
// reason once. Call with l.mu held.
func (l *lease) failedLocked(err error) {
	l.broken = err
	if msg := err.Error(); msg != l.reported {
		l.reported = msg
		l.m.log.Error("login lock unavailable: login checks are denied until it works", "err", err)
	}
}

// failed records why the last use of the lock failed; the caller logs it.
func (l *lease) failed(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.broken = err
}

func (l *lease) worked() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.broken, l.reported = nil, ""
}

// open creates or updates the bucket with the spec the server allows.
func (l *lease) open(ctx context.Context) (jetstream.KeyValue, bucketSpec, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*l.m.cfg.RequestTimeout)
	defer cancel()
	if v := l.m.nc.ConnectedServerVersion(); !versionAtLeast(v, MinServerVersion) {
		return nil, bucketSpec{}, fmt.Errorf("nats-server %s is too old for the login lock: ether needs nats-server %s or newer", v, MinServerVersion)
	}
	js, err := jetstream.New(l.m.nc)
	if err != nil {
		return nil, bucketSpec{}, fmt.Errorf("jetstream: %w", err)
	}
	info, err := js.AccountInfo(ctx)
	if err != nil {
		return nil, bucketSpec{}, fmt.Errorf("jetstream on the NATS server (it must run with JetStream, e.g. nats-server -js): %w", err)
	}
	spec := bucketSpec{replicas: l.wantReplicas(), markers: info.API.Level >= 1}
	floor := 1
	var cur *jetstream.StreamConfig
	switch s, err := js.Stream(ctx, "KV_"+l.m.subj.leaseBucket()); {
	case err == nil:
		c := s.CachedInfo().Config
		cur = &c
		spec.markers = spec.markers && c.AllowMsgTTL // markers cannot be turned off; no need to turn them on
		floor = max(c.Replicas, 1)
		spec.replicas = max(spec.replicas, floor) // never lowered
	case !errors.Is(err, jetstream.ErrStreamNotFound):
		return nil, bucketSpec{}, fmt.Errorf("look up login lock bucket %s: %w", l.m.subj.leaseBucket(), err)
	}
	for {
		kv, err := l.bind(ctx, js, cur, spec)
		if err == nil {
			return kv, spec, nil
		}
		if l.m.cfg.LockReplicas != 0 || spec.replicas <= floor || !tooFewServers(err) {
			return nil, bucketSpec{}, fmt.Errorf("create login lock bucket %s with %d replicas: %w", l.m.subj.leaseBucket(), spec.replicas, err)
		}
		l.m.log.Debug("too few JetStream servers for the login lock's replicas; trying fewer", "replicas", spec.replicas, "err", err)
		spec.replicas--
	}
}

// bind opens the bucket: it creates it when missing, and updates it only
// when its replicas or lock lifetime differ from spec. Debian 12's
// nats-server 2.9.10 crashes (a nil dereference in the stream update) on
// an update that races the stream's creation by another node, so no
// update is ever sent when nothing would change, and a node that loses
// the creation race binds to the winner's bucket.
func (l *lease) bind(ctx context.Context, js jetstream.JetStream, cur *jetstream.StreamConfig, spec bucketSpec) (jetstream.KeyValue, error) {
	cfg := l.config(spec)
	switch {
	case cur == nil:
		kv, err := js.CreateKeyValue(ctx, cfg)
		if errors.Is(err, jetstream.ErrBucketExists) {
			return js.KeyValue(ctx, cfg.Bucket)
		}
		return kv, err
	case cur.Replicas >= spec.replicas && cur.MaxAge == cfg.TTL:
		return js.KeyValue(ctx, cfg.Bucket)
	}
	return js.UpdateKeyValue(ctx, cfg)
}

func (l *lease) config(spec bucketSpec) jetstream.KeyValueConfig {
	c := jetstream.KeyValueConfig{
		Bucket:      l.m.subj.leaseBucket(),
		Description: "ether login locks",
		History:     1,
		TTL:         l.m.cfg.LeaseTTL,
		Storage:     jetstream.FileStorage,
		Replicas:    spec.replicas,
	}
	if spec.markers {
		c.LimitMarkerTTL = max(l.m.cfg.LeaseTTL, time.Second)
	}
	return c
}

// wantReplicas is LockReplicas, or 3 in a NATS cluster and 1 on a lone
// server.
func (l *lease) wantReplicas() int {
	switch {
	case l.m.cfg.LockReplicas > 0:
		return l.m.cfg.LockReplicas
	case l.m.nc.ConnectedClusterName() == "":
		return 1
	}
	return 3
}

// tooFewServers reports a JetStream refusal to place more replicas than
// it has servers for.
func tooFewServers(err error) bool {
	var api *jetstream.APIError
	if !errors.As(err, &api) {
		return false
	}
	switch api.ErrorCode {
	case 10005, 10023, 10074: // no suitable peers, insufficient resources, replicas > 1 without a cluster
		return true
	}
	return false
}

// versionAtLeast compares "major.minor.patch" versions, ignoring anything
// after a '-' or '+'. An unparsable version counts as new enough.
func versionAtLeast(have, want string) bool {
	h, okH := parseVersion(have)
	w, okW := parseVersion(want)
	if !okH || !okW {
		return true
	}
	for i := range h {
		if h[i] != w[i] {
			return h[i] > w[i]
		}
	}
	return true
}

func parseVersion(v string) ([3]int, bool) {
	var out [3]int
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return out, false
		}
		out[i] = n
	}
	return out, true
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
			m.lease.worked()
			return true, nil
		case errors.Is(err, jetstream.ErrKeyExists):
			m.lease.worked()
			return false, nil
		}
		m.lease.forget(err)
		if attempt > 0 {
			err = fmt.Errorf("take login lock of %d: %w", user, err)
			m.lease.failed(err) // the caller logs it
			return false, err
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
