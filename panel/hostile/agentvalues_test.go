package hostile

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
)

// withIngest runs the panel with an ingester, as corrosion-panel serve does:
// what agents publish reaches the database and the pages.
func withIngest(t *testing.T) func(*paneltest.Options) {
	return func(o *paneltest.Options) {
		o.Features = func(d paneltest.Deps) []httpx.Feature {
			paneltest.StartIngest(t, d)
			return allFeatures(d)
		}
	}
}

// publishAs publishes v on subject, as a (rogue) agent of the license would.
func publishAs(t *testing.T, e *env, subject string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.P.NC.Publish(subject, b); err != nil {
		t.Fatal(err)
	}
}

func rogueHeartbeat(at time.Time) wire.Heartbeat {
	f := func(v float64) *float64 { return &v }
	u := func(v uint64) *uint64 { return &v }
	cores := 4
	return wire.Heartbeat{Schema: wire.Schema, Timestamp: at,
		Agent: wire.AgentInfo{Version: "6.6.6", OS: "linux", Arch: "x86_64"},
		Host: wire.HostInfo{Hostname: "rogue", CPUPercent: f(-55.5), CPUCores: &cores,
			MemTotalMB: u(1000), MemUsedMB: u(9000), Disks: []wire.Disk{{Mount: "/", TotalMB: 100, FreeMB: 500}}},
		Instances: []wire.InstanceReport{{ID: "world1", Game: "worldsrv", State: wire.StateRunning, PID: 42, CPUPercent: f(1e6)}},
	}
}

// Values from agents are data, not truth (issue 17 point 5): a rogue agent
// of Demo reports a negative CPU, more memory used than it has, more disk free
// than its size and an instance at a million percent, then dates a crash
// 9999-01-01 and keeps reporting the instance running. The host page shows
// clamped values and names the impossible ones; the future-dated crash does
// not freeze the instance; and the operator of Other sees none of it.
func TestHostile_RogueAgentValuesAreData(t *testing.T) {
	e := start(t, withIngest(t))
	publishAs(t, e, wire.HeartbeatSubject(Demo), rogueHeartbeat(time.Now()))
	page := func() string { _, body := e.Admin.Get("/hosts/" + Demo); return body }
	poll.True(t, 15*time.Second, "the rogue host's page names its impossible values", func() bool {
		return strings.Contains(page(), "agent reported impossible values")
	})
	body := page()
	if n := strings.Count(body, "-55.5 %"); n != 1 { // once: in the note that names it, never as the CPU
		t.Errorf("the host page shows -55.5 %% %d times, want once (named as impossible)", n)
	}
	for _, bad := range []string{"8.8 / 1.0", "1000000"} {
		if strings.Contains(body, bad) {
			t.Errorf("the host page shows %q as a value", bad)
		}
	}
	publishAs(t, e, wire.StatusSubject(Demo, "world1"), wire.StatusEvent{Timestamp: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC),
		InstanceID: "world1", Event: wire.StateEvent{State: wire.StateCrashed, CrashCount: 1}})
	instance := func() string { _, body := e.Admin.Get("/hosts/" + Demo + "/instances/world1"); return body }
	poll.True(t, 15*time.Second, "the crash reaches the instance page", func() bool { return strings.Contains(instance(), "crashed") })
	later := rogueHeartbeat(time.Now().Add(time.Second))
	later.Instances[0].PID = 43 // restarted
	publishAs(t, e, wire.HeartbeatSubject(Demo), later)
	poll.True(t, 15*time.Second, "a later heartbeat's running state is honoured", func() bool {
		b := instance()
		return strings.Contains(b, "running") && !strings.Contains(b, "9999")
	})
	if status, body := e.Op.Get("/hosts/" + Demo); status != 403 || strings.Contains(body, "rogue") {
		t.Errorf("the operator of %s reads %s's host page: %d", Other, Demo, status)
	}
	// The Servers page lists every visible instance: the operator of Other
	// finds none of Demo's there either, not even by searching its host.
	if _, body := e.Admin.Get("/servers?q=rogue"); !strings.Contains(body, "/hosts/"+Demo+"/instances/world1") {
		t.Errorf("the admin does not find %s's instance on the Servers page by its host", Demo)
	}
	if status, body := e.Op.Get("/servers?q=rogue"); status != 200 || strings.Contains(body, "/hosts/"+Demo) {
		t.Errorf("the operator of %s finds %s's instances on the Servers page: %d", Other, Demo, status)
	}
}
