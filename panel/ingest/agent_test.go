package ingest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/ingest"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/store"
)

// The real agent binary (heartbeat every second) against real NATS and
// Postgres: its host and instances appear, state events build the
// timeline, the going_offline beacon takes the host offline at once and
// the next heartbeat brings it back, and silence takes it offline by the
// rule (3 × the observed interval, clamped to 5 s).
func TestIngest_RealAgent_HostTimelineBeaconAndSilence(t *testing.T) {
	const lic = "lic-agent"
	r := newRig(t, "", lic)
	r.startIngest(t, ingest.Config{})
	a := paneltest.StartAgent(t, r.nats.URL(), lic,
		paneltest.AgentInstance{ID: "world1", Autostart: true},
		paneltest.AgentInstance{ID: "idle"})
	ctx := context.Background()
	host := func() store.Host {
		h, err := r.st.Host(ctx, lic)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	poll.Until(t, 20*time.Second, func() error {
		h := host()
		if !h.Online || h.Counts[wire.StateRunning] != 1 || h.Counts[wire.StateStopped] != 1 {
			return fmt.Errorf("host online %v counts %v", h.Online, h.Counts)
		}
		return nil
	})
	if h := host(); h.AgentVersion == "" || h.Hostname == "" || h.OS != "linux" {
		t.Fatalf("host facts missing: %+v", h)
	}
	// A stop through the agent reaches the timeline and the instance row.
	if _, err := r.pub.Request(wire.CmdSubject(lic, "world1"), []byte(`{"func":"stop","wait":true}`), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, func() error {
		in, err := r.st.Instance(ctx, lic, "world1")
		if err != nil || in.State != wire.StateStopped {
			return fmt.Errorf("world1 = %+v, %v", in, err)
		}
		return timelineHas(r.st, lic, "world1", wire.StateRunning, wire.StateStopping, wire.StateStopped)
	})

	a.Stop() // SIGTERM: the beacon
	poll.True(t, 3*time.Second, "offline by the going_offline beacon", func() bool { h := host(); return !h.Online && !h.GoingOffline.IsZero() })
	a.Start()
	poll.True(t, 10*time.Second, "online again after the next heartbeat", func() bool { return host().Online })

	a.Kill() // silence, no beacon
	killed := time.Now()
	poll.True(t, 30*time.Second, "offline by silence", func() bool { return !host().Online })
	h := host()
	if !h.GoingOffline.IsZero() || h.Interval != store.MinInterval {
		t.Fatalf("offline for the wrong reason: beacon %v, interval %v", h.GoingOffline, h.Interval)
	}
	if waited := time.Since(killed); waited < 2*store.MinInterval {
		t.Fatalf("offline after %v of silence, before 3 intervals", waited)
	}
}

// timelineHas reports whether the instance's timeline holds every state.
func timelineHas(st *store.Store, license, instance string, states ...wire.State) error {
	tl, err := st.Timeline(context.Background(), license, instance, 100)
	if err != nil {
		return err
	}
	have := map[wire.State]bool{}
	for _, e := range tl {
		have[e.State] = true
	}
	for _, s := range states {
		if !have[s] {
			return fmt.Errorf("timeline of %s/%s lacks %s: %+v", license, instance, s, tl)
		}
	}
	return nil
}
