package fleetui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/fleetui"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/store"
)

const allViews = livestate.ViewFleet | livestate.ViewHost | livestate.ViewInstance

func heartbeatEvent(license string, at time.Time, st wire.State) livestate.Event {
	cpu := 5.0
	return livestate.Event{Kind: livestate.KindHeartbeat, License: license, Received: at,
		Heartbeat: &store.HeartbeatRow{License: license, Received: at, Heartbeat: wire.Heartbeat{Schema: wire.Schema, Timestamp: at, Agent: wire.AgentInfo{Version: "v1"},
			Host:      wire.HostInfo{Hostname: "box", CPUPercent: &cpu},
			Instances: []wire.InstanceReport{{ID: "game1", Game: "generic", State: st, PID: 7}}}}}
}

func find(frags []livestate.Fragment, name string) (livestate.Fragment, bool) {
	for _, f := range frags {
		if f.Name == name {
			return f, true
		}
	}
	return livestate.Fragment{}, false
}

func modelPanel(t *testing.T) (*paneltest.Panel, livestate.Model) {
	t.Helper()
	p := startPanel(t)
	p.AddLicense(t, "lic-a")
	return p, fleetui.NewModel(p.Store, paneltest.TestLogger(t))
}

// A host that falls silent turns offline on open pages by the store's
// rule (3 × its interval), without any new event: the tick finds it.
func TestModel_TickTurnsSilentHostOffline(t *testing.T) {
	_, m := modelPanel(t)
	ctx, t0 := context.Background(), time.Now()
	frags := m.Apply(ctx, heartbeatEvent("lic-a", t0, wire.StateRunning), allViews)
	if f, ok := find(frags, "hostbadge-lic-a"); !ok || !strings.Contains(string(f.HTML), "st-online") {
		t.Fatalf("heartbeat: no online badge in %v", names(frags))
	}
	if frags := m.Tick(ctx, t0.Add(time.Second), allViews); len(frags) != 0 {
		t.Fatalf("a tick that changes nothing sent %v", names(frags))
	}
	frags = m.Tick(ctx, t0.Add(3*time.Minute+time.Second), allViews) // default interval 60 s until observed
	f, ok := find(frags, "hostbadge-lic-a")
	if !ok || !strings.Contains(string(f.HTML), "st-offline") || !strings.Contains(string(f.HTML), "last heartbeat 3 min ago") {
		t.Fatalf("silence: badge %q among %v", f.HTML, names(frags))
	}
	if b, ok := find(frags, "badge-game1"); !ok || !strings.Contains(string(b.HTML), "last known: running") {
		t.Fatalf("silence: the instance badge does not turn stale: %q", b.HTML)
	}
	if f, ok := find(frags, "host-cpu-lic-a"); !ok || !strings.Contains(string(f.HTML), "stale") {
		t.Fatalf("silence: the CPU figure is not marked stale: %q", f.HTML)
	}
	frags = m.Tick(ctx, t0.Add(4*time.Minute+time.Second), allViews)
	if f, ok := find(frags, "hostbadge-lic-a"); !ok || !strings.Contains(string(f.HTML), "4 min ago") {
		t.Fatalf("a minute later the stale text is not updated: %v", names(frags))
	}
}

func TestModel_BeaconTurnsHostOfflineAtOnce(t *testing.T) {
	_, m := modelPanel(t)
	ctx, t0 := context.Background(), time.Now()
	m.Apply(ctx, heartbeatEvent("lic-a", t0, wire.StateRunning), allViews)
	frags := m.Apply(ctx, livestate.Event{Kind: livestate.KindGoingOffline, License: "lic-a", Received: t0.Add(time.Second)}, allViews)
	if f, ok := find(frags, "hostbadge-lic-a"); !ok || !strings.Contains(string(f.HTML), "agent shut down") {
		t.Fatalf("beacon: %v", names(frags))
	}
	frags = m.Apply(ctx, heartbeatEvent("lic-a", t0.Add(2*time.Second), wire.StateRunning), allViews)
	if f, ok := find(frags, "hostbadge-lic-a"); !ok || !strings.Contains(string(f.HTML), "st-online") {
		t.Fatalf("next heartbeat: %v", names(frags))
	}
}

// A status event is newer than the heartbeat that was stamped before it:
// the heartbeat does not put the old state back.
func TestModel_StatusEventWinsOverAnOlderHeartbeat(t *testing.T) {
	_, m := modelPanel(t)
	ctx, t0 := context.Background(), time.Now()
	m.Apply(ctx, heartbeatEvent("lic-a", t0, wire.StateRunning), allViews)
	frags := m.Apply(ctx, livestate.Event{Kind: livestate.KindStatus, License: "lic-a", Instance: "game1", Received: t0.Add(2 * time.Second),
		Status: &store.Event{License: "lic-a", Instance: "game1", At: t0.Add(2 * time.Second), State: wire.StateStopping, PID: 7}}, allViews)
	if _, ok := find(frags, "tl-game1"); !ok {
		t.Fatalf("status: no timeline event in %v", names(frags))
	}
	old := heartbeatEvent("lic-a", t0.Add(time.Second), wire.StateRunning)
	old.Received, old.Heartbeat.Received = t0.Add(3*time.Second), t0.Add(3*time.Second)
	frags = m.Apply(ctx, old, allViews)
	if b, ok := find(frags, "badge-game1"); ok {
		t.Fatalf("an older heartbeat changed the badge back: %q", b.HTML)
	}
	snap := m.(livestate.Snapshotter).Snapshot(ctx, livestate.Subscription{View: livestate.ViewInstance, License: "lic-a", Instance: "game1"}, t0)
	if b, ok := find(snap, "badge-game1"); !ok || !strings.Contains(string(b.HTML), "st-stopping") {
		t.Fatalf("after an older heartbeat the state is %q, want stopping", b.HTML)
	}
}

func TestModel_UnknownLicenseIsIgnored(t *testing.T) {
	_, m := modelPanel(t)
	if frags := m.Apply(context.Background(), heartbeatEvent("nobody", time.Now(), wire.StateRunning), allViews); len(frags) != 0 {
		t.Fatalf("an unknown license's heartbeat rendered %v", names(frags))
	}
}

// A new stream gets what changed after its page was rendered.
func TestModel_SnapshotSendsChangesAfterRender(t *testing.T) {
	_, m := modelPanel(t)
	ctx, t0 := context.Background(), time.Now()
	m.Apply(ctx, heartbeatEvent("lic-a", t0, wire.StateRunning), allViews)
	sn := m.(livestate.Snapshotter)
	sub := livestate.Subscription{View: livestate.ViewInstance, License: "lic-a", Instance: "game1"}
	if frags := sn.Snapshot(ctx, sub, t0.Add(time.Second)); len(frags) != 0 {
		t.Fatalf("nothing changed since: %v", names(frags))
	}
	frags := sn.Snapshot(ctx, sub, t0.Add(-time.Second))
	if _, ok := find(frags, "badge-game1"); !ok {
		t.Fatalf("snapshot lacks the badge: %v", names(frags))
	}
	poll.True(t, time.Second, "snapshot is not deduplicated", func() bool {
		_, ok := find(sn.Snapshot(ctx, sub, t0.Add(-time.Second)), "badge-game1")
		return ok
	})
}

func names(frags []livestate.Fragment) []string {
	out := make([]string, len(frags))
	for i, f := range frags {
		out[i] = fmt.Sprintf("%s/%d", f.Name, f.Audience)
	}
	return out
}

// A host already silent when a page opens (no event will come) still
// turns offline on it: opening the stream seeds the model from the store.
func TestModel_HostSilentBeforeThePageOpensTurnsOffline(t *testing.T) {
	p, _ := modelPanel(t)
	publishHeartbeat(t, p, "lic-a", "box", "v1")
	ctx := context.Background()
	poll.Until(t, 20*time.Second, func() error {
		if h, err := p.Store.Host(ctx, "lic-a"); err != nil || !h.Seen {
			return fmt.Errorf("not ingested: %v", err)
		}
		return nil
	})
	later := time.Now().Add(time.Hour)
	for _, sub := range []livestate.Subscription{{View: livestate.ViewFleet}, {View: livestate.ViewHost, License: "lic-a"},
		{View: livestate.ViewInstance, License: "lic-a", Instance: "game1"}} {
		m := fleetui.NewModel(p.Store, paneltest.TestLogger(t)) // a replica that has seen no event
		m.(livestate.Snapshotter).Snapshot(ctx, sub, time.Now())
		frags := m.Tick(ctx, later, sub.View)
		want := "hostbadge-lic-a"
		if sub.View == livestate.ViewInstance {
			want = "badge-game1"
		}
		if f, ok := find(frags, want); !ok || !strings.Contains(string(f.HTML), "st-offline") {
			t.Errorf("view %d: no offline %s after the silence: %v", sub.View, want, names(frags))
		}
	}
}

func TestModel_ProbesFromTheLastHeartbeat(t *testing.T) {
	_, m := modelPanel(t)
	ev := heartbeatEvent("lic-a", time.Now(), wire.StateRunning)
	lat := 1.25
	ev.Heartbeat.Heartbeat.Probe = &wire.ProbeReport{Timestamp: time.Now(), Results: []wire.ProbeResult{
		{Name: "db", Host: "10.0.0.2", Port: 5432, OK: true, LatencyMS: &lat},
		{Name: "nats", Host: "10.0.0.3", Port: 4222, Error: "connection refused"}}}
	f, ok := find(m.Apply(context.Background(), ev, livestate.ViewHost), "probes-lic-a")
	html := string(f.HTML)
	if !ok || !strings.Contains(html, "10.0.0.2:5432") || !strings.Contains(html, "1.2 ms") ||
		!strings.Contains(html, "connection refused") || !strings.Contains(html, "st-crashed") {
		t.Fatalf("probes fragment: %s", html)
	}
}

// A fleet page opened just after a wave of heartbeats is not sent every
// host again (its buffer would overflow into a refetch): only hosts whose
// online state or instance counts changed.
func TestModel_FleetSnapshotSkipsTelemetryOnly(t *testing.T) {
	_, m := modelPanel(t)
	ctx, t0 := context.Background(), time.Now()
	sn := m.(livestate.Snapshotter)
	sn.Snapshot(ctx, livestate.Subscription{View: livestate.ViewFleet}, t0) // the page that makes the model watch
	m.Apply(ctx, heartbeatEvent("lic-a", t0, wire.StateRunning), allViews)
	fleet := livestate.Subscription{View: livestate.ViewFleet}
	if frags := sn.Snapshot(ctx, fleet, t0.Add(-time.Second)); len(frags) == 0 {
		t.Fatal("the first heartbeat (offline → online) is not in the snapshot")
	}
	m.Apply(ctx, heartbeatEvent("lic-a", t0.Add(10*time.Second), wire.StateRunning), allViews)
	if frags := sn.Snapshot(ctx, fleet, t0.Add(5*time.Second)); len(frags) != 0 {
		t.Fatalf("a telemetry-only heartbeat is in the snapshot: %v", names(frags))
	}
	m.Apply(ctx, heartbeatEvent("lic-a", t0.Add(20*time.Second), wire.StateStopped), allViews)
	if frags := sn.Snapshot(ctx, fleet, t0.Add(15*time.Second)); len(frags) == 0 {
		t.Fatal("a heartbeat that changed the counts is not in the snapshot")
	}
}

// A host killed seconds after its first heartbeat, before the model had
// the store's observed interval, still turns offline after three real
// intervals: the tick asks the store again.
func TestModel_SilentHostWithUnlearnedIntervalAsksTheStore(t *testing.T) {
	p, m := modelPanel(t)
	ctx := context.Background()
	t0 := time.Now()
	m.Apply(ctx, heartbeatEvent("lic-a", t0, wire.StateRunning), allViews) // seeded: interval unknown (60 s)
	// The store observes gaps of milliseconds between heartbeats it writes
	// one by one: its interval becomes the 5 s minimum.
	poll.Until(t, 20*time.Second, func() error {
		h, err := p.Store.Host(ctx, "lic-a")
		if err == nil && h.Seen && h.Interval == store.MinInterval {
			return nil
		}
		before := h.LastHeartbeat
		publishHeartbeat(t, p, "lic-a", "box", "v1")
		poll.True(t, 10*time.Second, "heartbeat written", func() bool {
			h, err := p.Store.Host(ctx, "lic-a")
			return err == nil && h.LastHeartbeat.After(before)
		})
		return fmt.Errorf("interval not observed yet: %v %v", h.Interval, err)
	})
	frags := m.Tick(ctx, t0.Add(20*time.Second), allViews) // 3 × 5 s of silence, well short of 3 × 60 s
	if f, ok := find(frags, "hostbadge-lic-a"); !ok || !strings.Contains(string(f.HTML), "st-offline") {
		t.Fatalf("the silent host stays online on a default interval: %v", names(frags))
	}
}
