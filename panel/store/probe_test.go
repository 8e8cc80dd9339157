package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/store"
)

// withReach sets the heartbeat's public address and its first instance's
// ports and builds, re-encoding the raw JSON.
func withReach(t *testing.T, r store.HeartbeatRow, addr string, ports []wire.BoundPortInfo, build, avail string) store.HeartbeatRow {
	t.Helper()
	r.Heartbeat.Host.PublicAddress = addr
	insts := slices.Clone(r.Heartbeat.Instances)
	insts[0].Ports, insts[0].Build, insts[0].AvailableBuild = ports, build, avail
	r.Heartbeat.Instances = insts
	raw, err := json.Marshal(r.Heartbeat)
	if err != nil {
		t.Fatal(err)
	}
	r.JSON = raw
	return r
}

// TestApplyBatch_ReachFields: the host's public address and an instance's
// declared ports and builds are stored from heartbeats, a change of either
// alone is written, and what cannot be is dropped with a note (data, not
// truth).
func TestApplyBatch_ReachFields(t *testing.T) {
	s := openFleetStore(t, "lic1")
	ctx := context.Background()
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	ports := []wire.BoundPortInfo{{Name: "game", Protocol: "udp", Port: 28015}, {Name: "query", Protocol: "udp", Port: 28017}}
	hb := withReach(t, fleetHeartbeat(t, "lic1", t0, t0, "rust1", "running"), "203.0.113.7", ports, "1001", "1001")
	fleetApply(t, s, store.Batch{Heartbeats: []store.HeartbeatRow{hb}})
	h, err := s.Host(ctx, "lic1")
	if err != nil {
		t.Fatal(err)
	}
	if h.PublicAddress != "203.0.113.7" {
		t.Fatalf("public address %q", h.PublicAddress)
	}
	in, err := s.Instance(ctx, "lic1", "rust1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in.Ports, ports) || in.Build != "1001" || in.AvailableBuild != "1001" || in.UpdateAvailable() {
		t.Fatalf("instance %+v", in)
	}

	// Only the available build changes, a second later (within the sample
	// bucket): still written.
	t1 := t0.Add(time.Second)
	hb = withReach(t, fleetHeartbeat(t, "lic1", t1, t1, "rust1", "running"), "game.example.com", ports[:1], "1001", "1002")
	fleetApply(t, s, store.Batch{Heartbeats: []store.HeartbeatRow{hb}})
	in, err = s.Instance(ctx, "lic1", "rust1")
	if err != nil {
		t.Fatal(err)
	}
	if in.AvailableBuild != "1002" || !in.UpdateAvailable() || len(in.Ports) != 1 {
		t.Fatalf("after the change: %+v", in)
	}
	if h, _ := s.Host(ctx, "lic1"); h.PublicAddress != "game.example.com" {
		t.Fatalf("public address %q", h.PublicAddress)
	}

	// Impossible values: an address with a port, bad ports, a build with
	// a control character; each dropped, the rest kept, each noted.
	t2 := t1.Add(time.Second)
	bad := []wire.BoundPortInfo{{Name: "game", Protocol: "udp", Port: 28015}, {Name: "Bad Name", Protocol: "udp", Port: 1},
		{Name: "x", Protocol: "sctp", Port: 2}, {Name: "y", Protocol: "tcp", Port: 70000}, {Name: "game", Protocol: "tcp", Port: 3}}
	hb = withReach(t, fleetHeartbeat(t, "lic1", t2, t2, "rust1", "running"), "203.0.113.7:28015", bad, "10\x0101", strings.Repeat("9", 65))
	fleetApply(t, s, store.Batch{Heartbeats: []store.HeartbeatRow{hb}})
	in, err = s.Instance(ctx, "lic1", "rust1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in.Ports, bad[:1]) || in.Build != "" || in.AvailableBuild != "" {
		t.Fatalf("impossible values kept: %+v", in)
	}
	h, err = s.Host(ctx, "lic1")
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(h.Impossible, "\n")
	for _, want := range []string{`public address "203.0.113.7:28015"`, `rust1 port "Bad Name"`, `"sctp"`, "70000", `rust1 build`} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if h.PublicAddress != "" {
		t.Errorf("public address %q kept", h.PublicAddress)
	}
}

// TestSaveProbe: an instance's last inbound probe is stored, read back
// whole, and shows on the instance row (verdict, players); a gone instance
// is ErrNotFound.
func TestSaveProbe(t *testing.T) {
	s := openFleetStore(t, "lic1")
	ctx := context.Background()
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	fleetApply(t, s, store.Batch{Heartbeats: []store.HeartbeatRow{fleetHeartbeat(t, "lic1", t0, t0, "rust1", "running")}})
	if _, ok, err := s.InstanceProbe(ctx, "lic1", "rust1"); ok || err != nil {
		t.Fatalf("before any probe: ok %v err %v", ok, err)
	}
	rep := wire.ProbeReport{Timestamp: t0, Direction: wire.DirectionInbound, Results: []wire.ProbeResult{
		{Name: "query", Host: "203.0.113.7", Port: 28017, OK: true, Protocol: "udp", Check: "a2s_info", Players: new(42), MaxPlayers: new(100)}}}
	if err := s.SaveProbe(ctx, "lic1", "rust1", store.Probe{At: t0, Verdict: "reachable", Players: new(42), Report: rep}); err != nil {
		t.Fatal(err)
	}
	p, ok, err := s.InstanceProbe(ctx, "lic1", "rust1")
	if err != nil || !ok {
		t.Fatalf("probe: ok %v err %v", ok, err)
	}
	if !p.At.Equal(t0) || p.Verdict != "reachable" || *p.Players != 42 || len(p.Report.Results) != 1 ||
		*p.Report.Results[0].MaxPlayers != 100 || p.Report.Direction != wire.DirectionInbound {
		t.Fatalf("probe %+v", p)
	}
	in, err := s.Instance(ctx, "lic1", "rust1")
	if err != nil {
		t.Fatal(err)
	}
	if in.ProbeVerdict != "reachable" || in.ProbePlayers == nil || *in.ProbePlayers != 42 || !in.ProbeAt.Equal(t0) {
		t.Fatalf("instance row %+v", in)
	}
	if err := s.SaveProbe(ctx, "lic1", "gone", store.Probe{At: t0, Report: rep}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("gone instance: %v", err)
	}
}
