package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/panel/ingest"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/store"
)

// The ingest bench: benchAgents simulated agents each publish one
// heartbeat (3-5 instances) per second for benchWindow, spread evenly over
// each second by benchPublishers goroutines.
const (
	benchAgents     = 5000
	benchWindow     = 12 * time.Second
	benchPublishers = 4
	benchSlot       = 10 * time.Millisecond // publishers wake this often
)

// lagRecorder collects lags and counts messages.
type lagRecorder struct {
	mu    sync.Mutex
	lags  []time.Duration // guarded by mu
	count atomic.Int64
	txs   atomic.Int64
}

func (l *lagRecorder) add(d ...time.Duration) {
	l.mu.Lock()
	l.lags = append(l.lags, d...)
	l.mu.Unlock()
}

func (l *lagRecorder) pct(p float64) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lags) == 0 {
		return 0
	}
	s := slices.Clone(l.lags)
	slices.Sort(s)
	i := min(int(p*float64(len(s))), len(s)-1) // nearest rank
	return float64(s[i]) / float64(time.Millisecond)
}

type ingestRun struct {
	published     int64
	window        time.Duration
	bare, written *lagRecorder
}

// BenchmarkIngest: sustained rate and publish-to-Postgres lag of ingest
// (lag = commit time − the heartbeat's timestamp, set when published),
// beside a bare NATS subscriber counting the same messages in the same
// run (lag = receive time − timestamp).
func BenchmarkIngest(b *testing.B) {
	run := runIngestBench(b)
	report := func(b *testing.B, l *lagRecorder) {
		b.ReportMetric(float64(l.count.Load())/run.window.Seconds(), "msgs/s")
		b.ReportMetric(l.pct(0.50), "p50-ms")
		b.ReportMetric(l.pct(0.99), "p99-ms")
		b.ReportMetric(float64(l.count.Load())/float64(run.published)*100, "kept-%")
	}
	b.Run("baseline", func(b *testing.B) { report(b, run.bare) })
	b.Run("corrosion", func(b *testing.B) {
		report(b, run.written)
		b.ReportMetric(float64(run.written.txs.Load())/run.window.Seconds(), "tx/s")
	})
}

func runIngestBench(b *testing.B) ingestRun {
	ctx := context.Background()
	st := benchStore(b)
	srv := natstest.Start(b)
	run := ingestRun{bare: &lagRecorder{}, written: &lagRecorder{}}
	bare := srv.Connect(b)
	sub, err := bare.Subscribe(ingest.SubjectHeartbeat, func(m *nats.Msg) {
		now := time.Now()
		var hb struct {
			Timestamp time.Time `json:"timestamp"`
		}
		if json.Unmarshal(m.Data, &hb) == nil {
			run.bare.add(now.Sub(hb.Timestamp))
			run.bare.count.Add(1)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	_ = sub.SetPendingLimits(-1, -1)
	nc := srv.Connect(b, nats.MaxReconnects(-1))
	in, err := ingest.New(ingest.Config{}, st, nc, paneltest.TestLogger(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	in.OnCommit(run.written.onCommit)
	ictx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- in.Run(ictx) }()
	waitInterest(b, nc)

	start := time.Now()
	run.published = publishFleet(b, srv, start)
	run.window = benchWindow
	// Let what is in flight land (bounded), then stop.
	deadline := time.Now().Add(10 * time.Second)
	for (run.written.count.Load() < run.published || run.bare.count.Load() < run.published) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.Logf("published %d heartbeats in %v; ingest wrote %d in %d transactions; bare subscriber got %d",
		run.published, time.Since(start).Round(time.Millisecond), run.written.count.Load(), run.written.txs.Load(), run.bare.count.Load())
	return run
}

// benchStore is a migrated store with the bench's licenses.
func benchStore(b *testing.B) *store.Store {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(b)
	if _, err := store.Migrate(ctx, dsn); err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(st.Close)
	if _, err := st.Pool().Exec(ctx, `INSERT INTO panel_licenses (id) SELECT 'lic' || g FROM generate_series(0, $1 - 1) g`, benchAgents); err != nil {
		b.Fatal(err)
	}
	return st
}

// onCommit records a committed batch: each heartbeat's lag, the messages
// it wrote (coalesced ones included) and one transaction.
func (l *lagRecorder) onCommit(batch *store.Batch, committed time.Time) {
	lags := make([]time.Duration, 0, len(batch.Heartbeats))
	for _, r := range batch.Heartbeats {
		lags = append(lags, committed.Sub(r.Heartbeat.Timestamp))
	}
	l.add(lags...)
	for _, n := range batch.Messages {
		l.count.Add(n)
	}
	l.txs.Add(1)
}

// publishFleet publishes benchAgents heartbeats per second for benchWindow
// and returns how many it published.
func publishFleet(b *testing.B, srv *natstest.Server, start time.Time) int64 {
	var published atomic.Int64
	var wg sync.WaitGroup
	slots := int(time.Second / benchSlot)
	for g := range benchPublishers {
		nc := srv.Connect(b)
		wg.Go(func() {
			defer nc.Flush()
			for tick := 0; ; tick++ {
				at := start.Add(time.Duration(tick) * benchSlot)
				if at.Sub(start) >= benchWindow {
					return
				}
				time.Sleep(time.Until(at))
				for agent := g; agent < benchAgents; agent += benchPublishers {
					if (agent/benchPublishers)%slots != tick%slots {
						continue
					}
					license := fmt.Sprintf("lic%d", agent)
					data, _ := json.Marshal(heartbeat(time.Now(), license, 3+agent%3))
					if nc.Publish(wire.HeartbeatSubject(license), data) == nil {
						published.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	return published.Load()
}
