package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/panel/store"
)

// openFleetStore is a migrated store on a fresh database with the given
// licenses created (P1's tests' own helper).
func openFleetStore(t *testing.T, licenses ...string) *store.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dsn := pgtest.NewDatabase(t)
	if _, err := store.Migrate(ctx, dsn); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	s, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(s.Close)
	for _, l := range licenses {
		if err := s.CreateLicense(ctx, l, "label "+l); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func fleetPtr[T any](v T) *T { return &v }

// fleetHeartbeat is a realistic heartbeat row for license at agent time at,
// received at recv, with instances named by id → state.
func fleetHeartbeat(t *testing.T, license string, at, recv time.Time, states ...string) store.HeartbeatRow {
	t.Helper()
	hb := wire.Heartbeat{
		Schema: wire.Schema, Timestamp: at,
		Agent: wire.AgentInfo{Version: "1.2.3", Commit: "abc", OS: "linux", Arch: "x86_64", UptimeSeconds: 60},
		Host: wire.HostInfo{Hostname: "host-" + license, CPUPercent: fleetPtr(12.5), CPUCores: fleetPtr(4),
			MemTotalMB: fleetPtr[uint64](8000), MemUsedMB: fleetPtr[uint64](2000),
			Disks: []wire.Disk{{Mount: "/", TotalMB: 1000, FreeMB: 400}, {Mount: "/srv", TotalMB: 3000, FreeMB: 100}}},
		Probe: &wire.ProbeReport{Timestamp: at, Results: []wire.ProbeResult{{Name: "nats", Host: "127.0.0.1", Port: 4222, OK: true}}},
	}
	for i := 0; i+1 < len(states); i += 2 {
		hb.Instances = append(hb.Instances, wire.InstanceReport{ID: states[i], Game: "rust", State: wire.State(states[i+1]), PID: 100 + i})
	}
	raw, err := json.Marshal(hb)
	if err != nil {
		t.Fatal(err)
	}
	return store.HeartbeatRow{License: license, Received: recv, Heartbeat: hb, JSON: raw}
}

func fleetApply(t *testing.T, s *store.Store, b store.Batch) store.BatchResult {
	t.Helper()
	res, err := s.ApplyBatch(context.Background(), b)
	if err != nil {
		t.Fatalf("apply batch: %v", err)
	}
	return res
}

func TestHostOnline(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name     string
		last     time.Time
		interval time.Duration
		going    time.Time
		now      time.Time
		want     bool
	}{
		{"never seen", time.Time{}, 0, time.Time{}, t0, false},
		{"fresh", t0, 10 * time.Second, time.Time{}, t0.Add(time.Second), true},
		{"exactly three intervals", t0, 10 * time.Second, time.Time{}, t0.Add(30 * time.Second), true},
		{"past three intervals", t0, 10 * time.Second, time.Time{}, t0.Add(31 * time.Second), false},
		{"unknown interval is 60 s", t0, 0, time.Time{}, t0.Add(179 * time.Second), true},
		{"unknown interval expires", t0, 0, time.Time{}, t0.Add(181 * time.Second), false},
		{"short interval clamped to 5 s", t0, time.Second, time.Time{}, t0.Add(14 * time.Second), true},
		{"clamped 5 s expires", t0, time.Second, time.Time{}, t0.Add(16 * time.Second), false},
		{"long interval clamped to 600 s", t0, time.Hour, time.Time{}, t0.Add(31 * time.Minute), false},
		{"beacon after heartbeat", t0, 10 * time.Second, t0.Add(time.Second), t0.Add(2 * time.Second), false},
		{"beacon at heartbeat", t0, 10 * time.Second, t0, t0, false},
		{"beacon before heartbeat", t0, 10 * time.Second, t0.Add(-time.Second), t0.Add(time.Second), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := store.HostOnline(c.last, c.interval, c.going, c.now); got != c.want {
				t.Fatalf("HostOnline = %v, want %v", got, c.want)
			}
		})
	}
}

func TestApplyBatch_HeartbeatCreatesHostAndInstances(t *testing.T) {
	s := openFleetStore(t, "lic1", "lic2")
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	res := fleetApply(t, s, store.Batch{
		Heartbeats: []store.HeartbeatRow{fleetHeartbeat(t, "lic1", now, now, "world10", "running", "ether10", "stopped")},
		Messages:   map[string]int64{"lic1": 1},
	})
	if len(res.Unknown) != 0 {
		t.Fatalf("unknown = %v, want none", res.Unknown)
	}
	h, err := s.Host(ctx, "lic1")
	if err != nil {
		t.Fatal(err)
	}
	if !h.Seen || !h.Online || h.Hostname != "host-lic1" || h.AgentVersion != "1.2.3" || h.Arch != "x86_64" {
		t.Fatalf("host = %+v", h)
	}
	if *h.DiskTotalMB != 4000 || *h.DiskFreeMB != 500 || *h.MemUsedMB != 2000 || *h.CPUCores != 4 {
		t.Fatalf("host telemetry = disk %d/%d mem %d cores %d", *h.DiskFreeMB, *h.DiskTotalMB, *h.MemUsedMB, *h.CPUCores)
	}
	if h.Probe == nil || len(h.Probe.Results) != 1 || h.Interval != store.DefaultInterval {
		t.Fatalf("probe %+v interval %v", h.Probe, h.Interval)
	}
	if h.Counts[wire.StateRunning] != 1 || h.Counts[wire.StateStopped] != 1 {
		t.Fatalf("counts = %v", h.Counts)
	}
	ins, err := s.Instances(ctx, "lic1")
	if err != nil || len(ins) != 2 || ins[0].ID != "ether10" || ins[1].State != wire.StateRunning || ins[1].PID != 100 {
		t.Fatalf("instances = %+v, %v", ins, err)
	}
	hosts, err := s.Hosts(ctx, store.HostFilter{Spark: 5})
	if err != nil || len(hosts) != 2 {
		t.Fatalf("hosts = %+v, %v", hosts, err)
	}
	if hosts[0].License != "lic1" || len(hosts[0].Samples) != 1 || hosts[1].Seen || hosts[1].Online {
		t.Fatalf("hosts = %+v", hosts)
	}
	// A heartbeat that changes only the telemetry of an instance rewrites
	// its row once per sample bucket.
	fleetApply(t, s, store.Batch{Heartbeats: []store.HeartbeatRow{fleetHeartbeat(t, "lic1", now.Add(time.Second/2), now.Add(time.Second/2), "world10", "running", "ether10", "stopped")}})
	next := now.Add(store.DefaultSampleEvery)
	row := fleetHeartbeat(t, "lic1", next, next, "world10", "running", "ether10", "stopped")
	row.Heartbeat.Instances[0].UptimeSeconds, row.Heartbeat.Instances[0].CPUPercent = 77, fleetPtr(150.5)
	row.Heartbeat.Instances[0].RSSMB = fleetPtr(uint64(1) << 63)
	row.JSON, _ = json.Marshal(row.Heartbeat)
	fleetApply(t, s, store.Batch{Heartbeats: []store.HeartbeatRow{row}})
	in, err := s.Instance(ctx, "lic1", "world10")
	if err != nil || in.UptimeSeconds != 77 || *in.CPUPercent != 150.5 || *in.RSSMB <= 0 || !in.UpdatedAt.Equal(next) || !in.StateSince.Equal(now) {
		t.Fatalf("world10 = %+v, %v", in, err)
	}
	// The next heartbeat drops an instance taken out of the config.
	later := next.Add(time.Second)
	fleetApply(t, s, store.Batch{Heartbeats: []store.HeartbeatRow{fleetHeartbeat(t, "lic1", later, later, "world10", "stopped")}})
	ins, err = s.Instances(ctx, "lic1")
	if err != nil || len(ins) != 1 || ins[0].State != wire.StateStopped || !ins[0].StateSince.Equal(later) || ins[0].CPUPercent != nil {
		t.Fatalf("instances after = %+v, %v", ins, err)
	}
}

func TestApplyBatch_UnknownLicenseCountedNotWritten(t *testing.T) {
	s := openFleetStore(t, "known")
	ctx := context.Background()
	now := time.Now()
	for range 2 {
		res := fleetApply(t, s, store.Batch{
			Heartbeats: []store.HeartbeatRow{fleetHeartbeat(t, "stranger", now, now, "a", "running")},
			Events:     []store.Event{{License: "stranger", Instance: "a", At: now, State: wire.StateRunning}},
			Messages:   map[string]int64{"stranger": 3},
		})
		if res.Unknown["stranger"] != 3 {
			t.Fatalf("unknown = %v", res.Unknown)
		}
	}
	u, err := s.UnknownLicenses(ctx)
	if err != nil || len(u) != 1 || u[0].License != "stranger" || u[0].Messages != 6 || u[0].Hostname != "host-stranger" {
		t.Fatalf("unknown licenses = %+v, %v", u, err)
	}
	if known, err := s.KnownLicense(ctx, "stranger"); err != nil || known {
		t.Fatalf("KnownLicense(stranger) = %v, %v", known, err)
	}
	if known, err := s.KnownLicense(ctx, "known"); err != nil || !known {
		t.Fatalf("KnownLicense(known) = %v, %v", known, err)
	}
	if _, err := s.Host(ctx, "stranger"); err == nil {
		t.Fatal("an unknown license's host was written")
	}
	// Once an admin creates it, it leaves the list and its heartbeats land.
	if err := s.CreateLicense(ctx, "stranger", ""); err != nil {
		t.Fatal(err)
	}
	if u, _ := s.UnknownLicenses(ctx); len(u) != 0 {
		t.Fatalf("created license still unknown: %+v", u)
	}
	fleetApply(t, s, store.Batch{Heartbeats: []store.HeartbeatRow{fleetHeartbeat(t, "stranger", now, now, "a", "running")}})
	if h, err := s.Host(ctx, "stranger"); err != nil || !h.Online {
		t.Fatalf("host = %+v, %v", h, err)
	}
}

func TestApplyBatch_RefusedOrRetryable(t *testing.T) {
	s := openFleetStore(t, "lic")
	now := time.Now()
	row := fleetHeartbeat(t, "lic", now, now)
	row.JSON = []byte("not json")
	_, err := s.ApplyBatch(context.Background(), store.Batch{Heartbeats: []store.HeartbeatRow{row}})
	if !errors.Is(err, store.ErrBatchRefused) {
		t.Fatalf("err = %v, want ErrBatchRefused", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	row.JSON = []byte("{}")
	if _, err := s.ApplyBatch(ctx, store.Batch{Heartbeats: []store.HeartbeatRow{row}}); err == nil || errors.Is(err, store.ErrBatchRefused) {
		t.Fatalf("cancelled: err = %v, want a retryable error", err)
	}
}
