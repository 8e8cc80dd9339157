// Package ingest writes what every agent publishes (heartbeats, going_offline
// beacons, status events) into the panel's store. It subscribes through a NATS
// queue group, so N panel replicas write each message once, and batches the
// writes: one transaction per flush (every FlushEvery or MaxBatch messages),
// however many agents there are. While Postgres is down it holds the newest
// state of each host and the status events (both bounded) and retries with
// backoff. Only panel/app wires it.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corrosion/corrosion/panel/store"
)

// QueueGroup is the NATS queue group every panel replica's ingest joins.
const QueueGroup = "corrosion-panel-ingest"

// The subjects ingest subscribes to (never console: a console is only
// subscribed while a browser watches it).
const (
	SubjectHeartbeat    = "corrosion.*.host.heartbeat"
	SubjectGoingOffline = "corrosion.*.host.going_offline"
	SubjectStatus       = "corrosion.*.*.status"
)

// Store is what ingest needs of the panel's store (*store.Store).
type Store interface {
	ApplyBatch(ctx context.Context, b store.Batch) (store.BatchResult, error)
	Prune(ctx context.Context, r store.Retention, now time.Time, touched []store.InstanceKey) (store.Pruned, error)
}

var _ Store = (*store.Store)(nil)

// Config tunes ingest; the zero value is the defaults.
type Config struct {
	Queue            string        // queue group; default QueueGroup
	FlushEvery       time.Duration // default 250 ms
	MaxBatch         int           // messages that trigger a flush early; default 2,000
	MaxPendingHosts  int           // hosts (licenses) held while Postgres is down; default 100,000
	MaxPendingEvents int           // status events held while Postgres is down; default 100,000 (oldest dropped)
	RetryMin         time.Duration // first backoff after a failed flush; default 250 ms
	RetryMax         time.Duration // backoff cap; default 10 s
	WriteTimeout     time.Duration // one flush's transaction; default 30 s
	DrainTimeout     time.Duration // the last flush at shutdown; default 10 s
	SampleEvery      time.Duration // host history resolution; default store.DefaultSampleEvery
	Retention        store.Retention
	PruneEvery       time.Duration // default 1 min
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.Queue == "" {
		c.Queue = QueueGroup
	}
	def(&c.FlushEvery, 250*time.Millisecond)
	def(&c.RetryMin, 250*time.Millisecond)
	def(&c.RetryMax, 10*time.Second)
	def(&c.WriteTimeout, 30*time.Second)
	def(&c.DrainTimeout, 10*time.Second)
	def(&c.SampleEvery, store.DefaultSampleEvery)
	def(&c.PruneEvery, time.Minute)
	if c.MaxBatch == 0 {
		c.MaxBatch = 2000
	}
	if c.MaxPendingHosts == 0 {
		c.MaxPendingHosts = 100_000
	}
	if c.MaxPendingEvents == 0 {
		c.MaxPendingEvents = 100_000
	}
	if c.Retention == (store.Retention{}) {
		c.Retention = store.DefaultRetention
	}
	return c
}

// ErrConfig is wrapped by every Config.Validate error.
var ErrConfig = errors.New("invalid ingest config")

// Validate names the first bad field (after defaults are applied).
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.FlushEvery < 0 || c.RetryMin < 0 || c.WriteTimeout < 0 || c.DrainTimeout < 0 || c.PruneEvery < 0:
		return fmt.Errorf("%w: durations must not be negative", ErrConfig)
	case c.RetryMax < c.RetryMin:
		return fmt.Errorf("%w: RetryMax %v is below RetryMin %v", ErrConfig, c.RetryMax, c.RetryMin)
	case c.MaxBatch < 0 || c.MaxPendingHosts < 0 || c.MaxPendingEvents < 0:
		return fmt.Errorf("%w: MaxBatch, MaxPendingHosts and MaxPendingEvents must not be negative", ErrConfig)
	case c.SampleEvery < time.Second:
		return fmt.Errorf("%w: SampleEvery %v is below 1s", ErrConfig, c.SampleEvery)
	case c.Retention.Samples <= 0 || c.Retention.Events <= 0 || c.Retention.EventsPerInstance <= 0 || c.Retention.Chunk <= 0:
		return fmt.Errorf("%w: Retention fields must be positive", ErrConfig)
	}
	return nil
}

// Ingester is one replica's ingest.
type Ingester struct {
	cfg     Config        // immutable after New
	store   Store         // immutable after New
	nc      *nats.Conn    // immutable after New; not ours to close
	log     *slog.Logger  // immutable after New
	metrics *metrics      // immutable after New
	kick    chan struct{} // a full batch wakes the flusher; buffered 1
	ready   chan struct{} // closed by Run once its subscriptions are registered

	mu      sync.Mutex
	pending *pending                       // guarded by mu
	touched map[store.InstanceKey]struct{} // guarded by mu: timelines to trim at the next prune
	logged  map[string]bool                // guarded by mu: malformed kinds and unknown licenses logged once

	// onCommit, when set, sees what every committed batch wrote (the live
	// state's feed; the bench's lag).
	onCommit func(b *store.Batch, committed time.Time) // set before Run, then immutable
}

// OnCommit makes in call fn with what each committed batch wrote (the
// messages of licenses the store does not know left out), on the flushing
// goroutine: fn must not block. Call it before Run.
func (in *Ingester) OnCommit(fn func(b *store.Batch, committed time.Time)) { in.onCommit = fn }

// Ready is closed once Run has subscribed (and, NATS being up, the server
// has registered the subscriptions): from then on nothing published is
// missed. Run it once per Ingester.
func (in *Ingester) Ready() <-chan struct{} { return in.ready }

// New builds an ingester; Run starts it. reg may be nil (metrics are then
// not registered).
func New(cfg Config, st Store, nc *nats.Conn, log *slog.Logger, reg prometheus.Registerer) (*Ingester, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if st == nil || nc == nil {
		return nil, errors.New("ingest: a store and a NATS connection are required")
	}
	if log == nil {
		log = slog.Default()
	}
	in := &Ingester{
		cfg: cfg.withDefaults(), store: st, nc: nc, log: log.With("component", "ingest"),
		kick: make(chan struct{}, 1), ready: make(chan struct{}), touched: map[store.InstanceKey]struct{}{}, logged: map[string]bool{},
	}
	in.pending = newPending(in.cfg)
	m, err := newMetrics(reg, in.pendingCount)
	if err != nil {
		return nil, err
	}
	in.metrics = m
	return in, nil
}
