package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/ingest"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// rig is a real Postgres database (migrated) and a real NATS server.
type rig struct {
	dsn  string
	st   *store.Store
	nats *natstest.Server
	pub  *nats.Conn // the test's publisher (the agents' side)
}

func newRig(t *testing.T, dsn string, licenses ...string) *rig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if dsn == "" {
		dsn = pgtest.NewDatabase(t)
	}
	if _, err := store.Migrate(ctx, dsn); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(st.Close)
	for _, l := range licenses {
		if err := st.CreateLicense(ctx, l, ""); err != nil {
			t.Fatal(err)
		}
	}
	r := &rig{dsn: dsn, st: st, nats: natstest.Start(t)}
	r.pub = r.nats.Connect(t, nats.MaxReconnects(-1))
	return r
}

// replica is one running ingester with its own NATS connection, as one
// panel replica has.
type replica struct {
	in   *ingest.Ingester
	reg  *prometheus.Registry
	stop func() error // cancels Run and returns its error
}

func (r *rig) startIngest(t *testing.T, cfg ingest.Config) *replica {
	t.Helper()
	nc := r.nats.Connect(t, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	reg := prometheus.NewRegistry()
	in, err := ingest.New(cfg, r.st, nc, paneltest.TestLogger(t), reg)
	if err != nil {
		t.Fatal(err)
	}
	return runReplica(t, in, reg, nc)
}

func runReplica(t *testing.T, in *ingest.Ingester, reg *prometheus.Registry, nc *nats.Conn) *replica {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- in.Run(ctx) }()
	var stopped bool
	var runErr error
	stop := func() error {
		if !stopped {
			stopped = true
			cancel()
			runErr = <-done
		}
		return runErr
	}
	t.Cleanup(func() { _ = stop() })
	waitInterest(t, nc)
	return &replica{in: in, reg: reg, stop: stop}
}

// waitInterest waits until the ingester's three subscriptions are made
// and have reached the server.
func waitInterest(t testing.TB, nc *nats.Conn) {
	t.Helper()
	poll.True(t, 10*time.Second, "ingest subscribed", func() bool {
		return nc.NumSubscriptions() >= 3 && nc.Flush() == nil
	})
}

// metric sums a counter or histogram count of name whose labels include
// the given pairs.
func metric(t *testing.T, reg *prometheus.Registry, name string, labels ...string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if hasLabels(m, labels) {
				sum += m.GetCounter().GetValue() + float64(m.GetHistogram().GetSampleCount()) + m.GetGauge().GetValue()
			}
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == pairs[i] && l.GetValue() == pairs[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func ptr[T any](v T) *T { return &v }

// heartbeat is a realistic heartbeat with n instances.
func heartbeat(at time.Time, license string, n int) wire.Heartbeat {
	hb := wire.Heartbeat{
		Schema: wire.Schema, Timestamp: at,
		Agent: wire.AgentInfo{Version: "0.9.0", Commit: "abcdef0", OS: "linux", Arch: "x86_64", UptimeSeconds: 3600},
		Host: wire.HostInfo{Hostname: "gs-" + license, CPUPercent: ptr(23.5), CPUCores: ptr(8),
			MemTotalMB: ptr[uint64](32000), MemUsedMB: ptr[uint64](12000), UptimeSeconds: ptr[uint64](86400),
			Disks: []wire.Disk{{Mount: "/", TotalMB: 500000, FreeMB: 200000}}},
	}
	for i := range n {
		hb.Instances = append(hb.Instances, wire.InstanceReport{ID: fmt.Sprintf("world%d", i), Game: "rust",
			State: wire.StateRunning, UptimeSeconds: 3000, PID: 1000 + i, CPUPercent: ptr(50.0), RSSMB: ptr[uint64](2048)})
	}
	return hb
}

func publishJSON(t testing.TB, nc *nats.Conn, subject string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Publish(subject, data); err != nil {
		t.Fatal(err)
	}
}

func statusEvent(at time.Time, instance string, st wire.State, crashes int) wire.StatusEvent {
	return wire.StatusEvent{Timestamp: at, InstanceID: instance, Event: wire.StateEvent{State: st, CrashCount: crashes}}
}

// timelineLen counts an instance's events in the database (-1 when the
// read fails: the database may be restarting).
func timelineLen(t *testing.T, st *store.Store, license, instance string) int {
	t.Helper()
	tl, err := st.Timeline(context.Background(), license, instance, 100000)
	if err != nil {
		t.Logf("read timeline: %v", err)
		return -1
	}
	return len(tl)
}

func nilFilter() store.HostFilter { return store.HostFilter{} }

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
