package fleetui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/fleetui"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/ingest"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/store"
)

// adminStream starts a panel with the license lic-a and opens the live
// stream at path as an admin.
func adminStream(t *testing.T, path string) (*paneltest.Panel, *paneltest.Client, *stream) {
	t.Helper()
	p := startPanel(t)
	p.AddLicense(t, "lic-a")
	pw := p.AddUser(t, "ada", auth.RoleAdmin)
	c := p.Client(t, "ada", pw)
	_, s := openStream(t, p, c, path)
	return p, c, s
}

// A heartbeat ingest refuses never reaches an open page: the live state
// is what ingest committed, not a second decoder's view of NATS.
func TestLive_HeartbeatIngestRefusesNeverReachesThePage(t *testing.T) {
	p, _, fleet := adminStream(t, "/live/fleet")
	many := make([]wire.InstanceReport, ingest.MaxInstances+1)
	for i := range many {
		many[i] = wire.InstanceReport{ID: fmt.Sprintf("g%d", i), State: wire.StateRunning}
	}
	for _, tc := range []struct {
		name string
		bad  func(hb *wire.Heartbeat)
	}{
		{"zero timestamp", func(hb *wire.Heartbeat) { hb.Timestamp = time.Time{} }},
		{"unknown state", func(hb *wire.Heartbeat) { hb.Instances[0].State = "flying" }},
		{"duplicate ids", func(hb *wire.Heartbeat) { hb.Instances = append(hb.Instances, hb.Instances[0]) }},
		{"too many instances", func(hb *wire.Heartbeat) { hb.Instances = many }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tag := strings.ReplaceAll(tc.name, " ", "-")
			hb := wire.Heartbeat{Schema: wire.Schema, Timestamp: time.Now(), Agent: wire.AgentInfo{Version: "refused-" + tag},
				Host: wire.HostInfo{Hostname: "box"}, Instances: []wire.InstanceReport{{ID: "game1", State: wire.StateRunning}}}
			tc.bad(&hb)
			publish(t, p, wire.HeartbeatSubject("lic-a"), hb)
			publishHeartbeat(t, p, "lic-a", "box", "good-"+tag) // after the refused one
			fleet.waitFor(t, "host-agent-lic-a", "good-"+tag)
			for _, ev := range fleet.all() {
				if strings.Contains(ev.Data, "refused-"+tag) {
					t.Fatalf("the page was sent what ingest refused: %s: %s", ev.Name, ev.Data)
				}
			}
		})
	}
}

// slowStore delays every read of one license's host by delay, as a slow
// PostgreSQL query would (the context ends it early).
type slowStore struct {
	fleetui.Store
	license string
	delay   time.Duration
	reading chan struct{} // gets a value when a slow read starts
}

func (s *slowStore) Host(ctx context.Context, license string) (store.Host, error) {
	if license == s.license {
		select {
		case s.reading <- struct{}{}:
		default:
		}
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return store.Host{}, ctx.Err()
		}
	}
	return s.Store.Host(ctx, license)
}

// A slow store read of one host (1.9 s: the model gives a read 2 s) does
// not delay another host's live update on the fleet stream: the model
// reads the store off the hub's goroutine. The slow host's update follows
// once its read lands.
func TestLive_SlowStoreDelaysNoOtherHost(t *testing.T) {
	slow := &slowStore{license: "lic-a", delay: 1900 * time.Millisecond, reading: make(chan struct{}, 1)}
	p := paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		paneltest.StartIngest(t, d)
		slow.Store = d.Store
		hub, err := fleetui.NewLive(livestate.Config{Tick: 100 * time.Millisecond}, d.NC, slow, d.Logger, nil)
		if err != nil {
			t.Fatal(err)
		}
		d.Go(func(ctx context.Context) { _ = hub.Run(ctx) })
		return []httpx.Feature{fleetui.New(fleetui.Deps{Store: d.Store, Agents: d.Agents, Live: hub, Logger: d.Logger})}
	}})
	p.AddLicense(t, "lic-a")
	p.AddLicense(t, "lic-b")
	pw := p.AddUser(t, "ada", auth.RoleAdmin)
	_, fleet := openStream(t, p, p.Client(t, "ada", pw), "/live/fleet")
	publishHeartbeat(t, p, "lic-a", "box-a", "a1")
	select {
	case <-slow.reading:
	case <-time.After(20 * time.Second):
		t.Fatal("the model never read lic-a's host")
	}
	start := time.Now()
	publishHeartbeat(t, p, "lic-b", "box-b", "b1")
	fleet.waitFor(t, "host-agent-lic-b", "b1")
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Fatalf("lic-b's update took %v while lic-a's store read was stuck (want < 500ms)", took)
	} else {
		t.Logf("lic-b's update arrived after %v while lic-a's read was stuck", took)
	}
	fleet.waitFor(t, "host-agent-lic-a", "a1") // and lic-a's, once its read landed
	poll.True(t, 5*time.Second, "stream still open", func() bool {
		select {
		case <-fleet.done:
			return false
		default:
			return true
		}
	})
}

// Values from agents are data, not truth: the host page (and its live
// facts) names what the agent reported that cannot be, shows it clamped,
// and shows an agent clock off by more than store.MaxClockSkew.
func TestHostPage_ImpossibleValuesAndClockSkewShown(t *testing.T) {
	p, c, live := adminStream(t, "/live/hosts/lic-a")
	cpu, total, used := -55.5, uint64(8000), uint64(9000)
	hb := wire.Heartbeat{Schema: wire.Schema, Timestamp: time.Now().Add(-2 * time.Hour), Agent: wire.AgentInfo{Version: "v1"},
		Host:      wire.HostInfo{Hostname: "box", CPUPercent: &cpu, MemTotalMB: &total, MemUsedMB: &used},
		Instances: []wire.InstanceReport{{ID: "game1", State: wire.StateRunning}}}
	publish(t, p, wire.HeartbeatSubject("lic-a"), hb)
	for _, want := range []string{"agent reported impossible values: cpu -55.5 %; memory used 9000 MB of 8000 MB", "2 h 0 min behind the panel"} {
		live.waitFor(t, "hostfacts-lic-a", want)
	}
	_, page := c.Get("/hosts/lic-a")
	for _, want := range []string{"agent reported impossible values: cpu -55.5 %", "2 h 0 min behind", "0.0 %"} {
		if !strings.Contains(page, want) {
			t.Errorf("host page lacks %q", want)
		}
	}
	if strings.Contains(page, ">-55.5 %") {
		t.Error("host page shows the impossible CPU figure as the host's CPU")
	}
}

// A status event dated 9999-01-01 does not freeze its instance on an open
// page: it is ordered by arrival, and a later heartbeat reporting running
// is shown.
func TestLive_FutureDatedEventDoesNotFreezeTheInstance(t *testing.T) {
	p, _, live := adminStream(t, "/live/hosts/lic-a")
	publishHeartbeat(t, p, "lic-a", "box", "v1")
	live.waitFor(t, "badge-game1", "st-running")
	publish(t, p, wire.StatusSubject("lic-a", "game1"), wire.StatusEvent{Timestamp: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC),
		InstanceID: "game1", Event: wire.StateEvent{State: wire.StateCrashed, CrashCount: 1}})
	live.waitFor(t, "badge-game1", "st-crashed")
	seen := len(live.all())
	cpu := 1.0
	publish(t, p, wire.HeartbeatSubject("lic-a"), wire.Heartbeat{Schema: wire.Schema, Timestamp: time.Now().Add(time.Second),
		Agent: wire.AgentInfo{Version: "v1"}, Host: wire.HostInfo{Hostname: "box", CPUPercent: &cpu},
		Instances: []wire.InstanceReport{{ID: "game1", Game: "generic", State: wire.StateRunning, PID: 43}}})
	poll.Until(t, 20*time.Second, func() error {
		for _, e := range live.all()[seen:] {
			if e.Name == "badge-game1" && strings.Contains(e.Data, "st-running") {
				return nil
			}
		}
		return fmt.Errorf("the later running heartbeat is not shown")
	})
}
