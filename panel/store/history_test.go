package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/store"
)

func TestApplyBatch_EventsTimelineDedupAndOrder(t *testing.T) {
	s := openFleetStore(t, "lic")
	ctx := context.Background()
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	ev := func(d time.Duration, st wire.State, crashes int, msg string) store.Event {
		return store.Event{License: "lic", Instance: "w", At: t0.Add(d), State: st, CrashCount: crashes, Message: msg, PID: 7}
	}
	crashed := ev(2*time.Second, wire.StateCrashed, 1, "exit 3")
	crashed.ExitCode = fleetPtr(3)
	batch := store.Batch{Events: []store.Event{ev(0, wire.StateStarting, 0, ""), ev(time.Second, wire.StateRunning, 0, "ready"), crashed}}
	fleetApply(t, s, batch)
	fleetApply(t, s, batch) // a redelivery (or a second replica) writes nothing new
	tl, err := s.Timeline(ctx, "lic", "w", 0)
	if err != nil || len(tl) != 3 {
		t.Fatalf("timeline = %+v, %v", tl, err)
	}
	if tl[0].State != wire.StateCrashed || *tl[0].ExitCode != 3 || tl[0].CrashCount != 1 || tl[2].State != wire.StateStarting {
		t.Fatalf("timeline order/content = %+v", tl)
	}
	in, err := s.Instance(ctx, "lic", "w")
	if err != nil || in.State != wire.StateCrashed || in.CrashCount != 1 || in.LastMessage != "exit 3" || !in.StateSince.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("instance = %+v, %v", in, err)
	}
	// A heartbeat newer than the events sets the state but keeps the crash
	// count; an event older than that heartbeat (another replica's late
	// batch) joins the timeline without moving the state back.
	hbAt := t0.Add(5 * time.Second)
	fleetApply(t, s, store.Batch{Heartbeats: []store.HeartbeatRow{fleetHeartbeat(t, "lic", hbAt, hbAt, "w", "running")}})
	fleetApply(t, s, store.Batch{Events: []store.Event{ev(4*time.Second, wire.StateStarting, 1, "restart")}})
	in, err = s.Instance(ctx, "lic", "w")
	if err != nil || in.State != wire.StateRunning || in.CrashCount != 1 || in.LastMessage != "restart" {
		t.Fatalf("instance after = %+v, %v", in, err)
	}
	if tl, _ := s.Timeline(ctx, "lic", "w", 2); len(tl) != 2 || tl[0].Message != "restart" {
		t.Fatalf("timeline limit 2 = %+v", tl)
	}
	if _, err := s.Instance(ctx, "lic", "nope"); err == nil {
		t.Fatal("missing instance found")
	}
}

func TestApplyBatch_ObservedIntervalAndBeacon(t *testing.T) {
	s := openFleetStore(t, "lic")
	ctx := context.Background()
	t0 := time.Now().Add(-time.Hour).UTC().Truncate(time.Millisecond)
	hb := func(at time.Time) store.Batch {
		return store.Batch{Heartbeats: []store.HeartbeatRow{fleetHeartbeat(t, "lic", at, at, "w", "running")}}
	}
	for i := range 5 {
		fleetApply(t, s, hb(t0.Add(time.Duration(i)*20*time.Second)))
	}
	h, err := s.Host(ctx, "lic")
	if err != nil || h.Interval != 20*time.Second {
		t.Fatalf("interval = %v, %v", h.Interval, err)
	}
	last := t0.Add(80 * time.Second)
	if !h.OnlineAt(last.Add(60*time.Second)) || h.OnlineAt(last.Add(61*time.Second)) {
		t.Fatal("offline rule does not use the observed interval")
	}
	// A stale heartbeat changes nothing.
	fleetApply(t, s, hb(t0.Add(10*time.Second)))
	if h, _ := s.Host(ctx, "lic"); !h.LastHeartbeat.Equal(last) || h.Interval != 20*time.Second {
		t.Fatalf("stale heartbeat applied: %+v", h)
	}
	// The beacon takes it offline at once; the next heartbeat brings it
	// back, and the restart's gap does not count as an interval.
	fleetApply(t, s, store.Batch{Beacons: []store.Beacon{{License: "lic", At: last.Add(time.Second)}}})
	if h, _ := s.Host(ctx, "lic"); h.OnlineAt(last.Add(2*time.Second)) || h.GoingOffline.IsZero() {
		t.Fatalf("beacon ignored: %+v", h)
	}
	back := last.Add(10 * time.Minute)
	fleetApply(t, s, hb(back))
	h, _ = s.Host(ctx, "lic")
	if !h.OnlineAt(back) || !h.GoingOffline.IsZero() || h.Interval != 20*time.Second {
		t.Fatalf("after restart: going %v interval %v", h.GoingOffline, h.Interval)
	}
	// Short gaps are clamped to the 5 s floor.
	for i := 1; i <= 8; i++ {
		fleetApply(t, s, hb(back.Add(time.Duration(i)*time.Second)))
	}
	if h, _ := s.Host(ctx, "lic"); h.Interval != store.MinInterval {
		t.Fatalf("interval after 1 s gaps = %v", h.Interval)
	}
}

func TestHosts_FilterSearchStateSpark(t *testing.T) {
	s := openFleetStore(t, "alpha", "beta", "gamma")
	ctx := context.Background()
	now := time.Now().UTC()
	old := now.Add(-time.Hour)
	var rows []store.HeartbeatRow
	for i := range 3 {
		at := now.Add(time.Duration(i-3) * store.DefaultSampleEvery)
		fleetApply(t, s, store.Batch{Heartbeats: []store.HeartbeatRow{fleetHeartbeat(t, "alpha", at, at, "w", "running")}})
	}
	rows = append(rows, fleetHeartbeat(t, "beta", old, old, "w", "stopped"))
	fleetApply(t, s, store.Batch{Heartbeats: rows})
	cases := []struct {
		name string
		f    store.HostFilter
		want []string
	}{
		{"all", store.HostFilter{}, []string{"alpha", "beta", "gamma"}},
		{"granted", store.HostFilter{Licenses: []string{"beta", "zeta"}}, []string{"beta"}},
		{"no grants", store.HostFilter{Licenses: []string{}}, nil},
		{"search hostname", store.HostFilter{Search: "HOST-BE"}, []string{"beta"}},
		{"search label", store.HostFilter{Search: "label gam"}, []string{"gamma"}},
		{"online", store.HostFilter{State: store.OnlineOnly}, []string{"alpha"}},
		{"offline", store.HostFilter{State: store.OfflineOnly}, []string{"beta", "gamma"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hosts, err := s.Hosts(ctx, c.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hosts {
				got = append(got, h.License)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
	hosts, err := s.Hosts(ctx, store.HostFilter{Licenses: []string{"alpha"}, Spark: 2})
	if err != nil || len(hosts[0].Samples) != 2 || !hosts[0].Samples[0].At.Before(hosts[0].Samples[1].At) {
		t.Fatalf("spark = %+v, %v", hosts, err)
	}
	if sm, err := s.Samples(ctx, "alpha", time.Time{}); err != nil || len(sm) != 3 || *sm[0].CPUPercent != 12.5 {
		t.Fatalf("samples = %+v, %v", sm, err)
	}
}

func TestPrune_AgeAndPerInstanceCap(t *testing.T) {
	s := openFleetStore(t, "lic")
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	var evs []store.Event
	for i := range 30 {
		evs = append(evs, store.Event{License: "lic", Instance: "w", At: now.Add(-time.Duration(i) * time.Hour), State: wire.StateRunning})
	}
	evs = append(evs, store.Event{License: "lic", Instance: "old", At: now.Add(-40 * 24 * time.Hour), State: wire.StateStopped})
	var hbs []store.Batch
	for i := range 5 {
		at := now.Add(-time.Duration(i) * 10 * time.Hour)
		hbs = append(hbs, store.Batch{Heartbeats: []store.HeartbeatRow{fleetHeartbeat(t, "lic", at, at)}})
	}
	for i := len(hbs) - 1; i >= 0; i-- {
		fleetApply(t, s, hbs[i])
	}
	fleetApply(t, s, store.Batch{Events: evs})
	r := store.Retention{Samples: 24 * time.Hour, Events: 30 * 24 * time.Hour, EventsPerInstance: 10, Chunk: 1}
	p, err := s.Prune(ctx, r, now, []store.InstanceKey{{License: "lic", Instance: "w"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples != 1 || p.Events != 1 || p.Trimmed != 20 || !p.Full(r) {
		t.Fatalf("pruned = %+v", p)
	}
	r.Chunk = 100
	if p, err = s.Prune(ctx, r, now, nil); err != nil || p.Samples != 1 || p.Full(r) {
		t.Fatalf("second prune = %+v, %v", p, err)
	}
	if tl, _ := s.Timeline(ctx, "lic", "w", 100); len(tl) != 10 || !tl[0].At.Equal(now) {
		t.Fatalf("timeline after trim = %d events", len(tl))
	}
	if tl, _ := s.Timeline(ctx, "lic", "old", 100); len(tl) != 0 {
		t.Fatalf("old timeline = %+v", tl)
	}
	if sm, _ := s.Samples(ctx, "lic", time.Time{}); len(sm) != 3 {
		t.Fatalf("samples after prune = %d", len(sm))
	}
}
