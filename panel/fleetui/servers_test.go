package fleetui_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// beat writes one heartbeat of license through the store's batched write,
// as ingest would, with the instances given.
func beat(t testing.TB, st *store.Store, license, hostname string, insts ...wire.InstanceReport) {
	t.Helper()
	at := time.Now()
	hb := wire.Heartbeat{Schema: wire.Schema, Timestamp: at, Agent: wire.AgentInfo{Version: "1.4.2", OS: "linux", Arch: "amd64"},
		Host: wire.HostInfo{Hostname: hostname}, Instances: insts}
	raw, _ := json.Marshal(hb)
	batch := store.Batch{Messages: map[string]int64{license: 1},
		Heartbeats: []store.HeartbeatRow{{License: license, Received: at, Heartbeat: hb, JSON: raw}}}
	if _, err := st.ApplyBatch(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
}

// serversFleet is two hosts: lic-x (alpha.example) with a running Rust
// server and a stopped Valheim one, lic-y (beta.example) with a crashed
// world.
func serversFleet(t *testing.T) *paneltest.Panel {
	p := startPanel(t)
	p.AddLicense(t, "lic-x")
	p.AddLicense(t, "lic-y")
	beat(t, p.Store, "lic-x", "alpha.example",
		wire.InstanceReport{ID: "rust1", Label: "Rust Main", Game: "rust", State: wire.StateRunning, UptimeSeconds: 3600},
		wire.InstanceReport{ID: "valheim1", Game: "valheim", State: wire.StateStopped})
	beat(t, p.Store, "lic-y", "beta.example",
		wire.InstanceReport{ID: "world10", Label: "Ünïcode World", Game: "worldsrv", State: wire.StateCrashed})
	return p
}

func TestServers_GrantsApply(t *testing.T) {
	p := serversFleet(t)
	admin := p.Client(t, "ada", p.AddUser(t, "ada", auth.RoleAdmin))
	opX := p.Client(t, "oscar", p.AddUser(t, "oscar", auth.RoleOperator, "lic-x"))
	viewY := p.Client(t, "vera", p.AddUser(t, "vera", auth.RoleViewer, "lic-y"))
	none := p.Client(t, "nell", p.AddUser(t, "nell", auth.RoleOperator))

	status, body := admin.Get("/servers")
	if status != http.StatusOK {
		t.Fatalf("admin GET /servers: %d\n%s", status, body)
	}
	for _, want := range []string{"Rust Main", "valheim1", "Ünïcode World", `href="/hosts/lic-x/instances/rust1"`,
		`href="/hosts/lic-x"`, "alpha.example", "beta.example", "badge st-running", "badge st-crashed", "3 of 3 servers"} {
		if !strings.Contains(body, want) {
			t.Errorf("admin's Servers page lacks %q", want)
		}
	}
	// Sorted by host then name: alpha's Rust Main, alpha's valheim1, beta's world.
	if a, b, c := strings.Index(body, "Rust Main"), strings.Index(body, ">valheim1<"), strings.Index(body, "Ünïcode World"); !(a < b && b < c) {
		t.Errorf("rows not sorted by host then name: %d %d %d", a, b, c)
	}

	_, body = opX.Get("/servers")
	if !strings.Contains(body, "Rust Main") || !strings.Contains(body, "valheim1") {
		t.Errorf("lic-x's operator does not see lic-x's servers")
	}
	if strings.Contains(body, "world10") || strings.Contains(body, "beta.example") {
		t.Errorf("lic-x's operator sees lic-y's servers:\n%s", body)
	}
	_, body = viewY.Get("/servers?q=rust")
	if strings.Contains(body, "rust1") || strings.Contains(body, "Rust Main") {
		t.Errorf("lic-y's viewer finds lic-x's server by searching")
	}
	_, body = viewY.Get("/servers")
	if !strings.Contains(body, "world10") || strings.Contains(body, "alpha.example") {
		t.Errorf("lic-y's viewer: want only lic-y's servers:\n%s", body)
	}
	_, body = none.Get("/servers")
	if !strings.Contains(body, "No servers yet") || !strings.Contains(body, "Ask an admin for a license") {
		t.Errorf("an operator without grants gets no designed empty state:\n%s", body)
	}
}

func TestServers_SearchAndFilter(t *testing.T) {
	p := serversFleet(t)
	c := p.Client(t, "ada", p.AddUser(t, "ada", auth.RoleAdmin))
	for _, tc := range []struct {
		query      string
		want, gone []string
	}{
		{"q=rust+main", []string{"rust1"}, []string{"valheim1", "world10"}},           // by label, case-insensitive
		{"q=VALHEIM", []string{"valheim1"}, []string{"rust1", "world10"}},             // by game
		{"q=beta.example", []string{"world10"}, []string{"rust1", "valheim1"}},        // by host name
		{"q=ünïcode", []string{"world10"}, []string{"rust1"}},                         // UTF-8 text
		{"state=running", []string{"rust1"}, []string{"valheim1", "world10"}},         // by state
		{"state=crashed", []string{"world10"}, []string{"rust1", "valheim1"}},         //
		{"q=alpha&state=stopped", []string{"valheim1"}, []string{"rust1", "world10"}}, // both
	} {
		status, body := c.Get("/servers?" + tc.query)
		if status != http.StatusOK {
			t.Errorf("GET /servers?%s: %d", tc.query, status)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(body, `/instances/`+w+`"`) {
				t.Errorf("/servers?%s does not list %s", tc.query, w)
			}
		}
		for _, g := range tc.gone {
			if strings.Contains(body, `/instances/`+g+`"`) {
				t.Errorf("/servers?%s lists %s", tc.query, g)
			}
		}
	}
	_, body := c.Get("/servers?q=nothing-matches-this")
	if !strings.Contains(body, "No server matches this search or filter") || !strings.Contains(body, "Show all 3 servers") {
		t.Errorf("a search with no match has no designed empty state:\n%s", body)
	}
	// The filter form keeps what it was given, and refetches the same view.
	_, body = c.Get("/servers?q=alpha&state=stopped")
	if !strings.Contains(body, `value="alpha"`) || !strings.Contains(body, `<option value="stopped" selected>`) ||
		!strings.Contains(body, `hx-get="/servers?q=alpha&amp;state=stopped"`) {
		t.Errorf("the filtered page does not keep its search and state")
	}
}

func TestServers_BadInput(t *testing.T) {
	p := serversFleet(t)
	c := p.Client(t, "ada", p.AddUser(t, "ada", auth.RoleAdmin))
	status, body := c.Get("/servers?state=exploded")
	if status != http.StatusBadRequest || !strings.Contains(body, `there is no server state &#34;exploded&#34;`) ||
		!strings.Contains(body, "running, starting") {
		t.Errorf("GET /servers?state=exploded: %d, want 400 naming the states:\n%s", status, body)
	}
	for _, q := range []string{"q=" + url.QueryEscape("\xff\xfe"), "q=a%00b"} {
		if status, body := c.Get("/servers?" + q); status != http.StatusBadRequest || !strings.Contains(body, "UTF-8") {
			t.Errorf("GET /servers?%s: %d, want 400 in words:\n%s", q, status, body)
		}
	}
	// A long search is cut on a rune boundary, not refused.
	if status, _ := c.Get("/servers?q=" + url.QueryEscape(strings.Repeat("é", 200))); status != http.StatusOK {
		t.Errorf("a long search: %d, want 200", status)
	}
}

// An instance's state change tells the fleet stream's pages so (the
// Servers page refetches its table on it); a heartbeat that changes only
// telemetry does not.
func TestServers_LiveStateChangeTriggersRefetch(t *testing.T) {
	_, m := modelPanel(t)
	ctx, t0 := context.Background(), time.Now()
	m.Apply(ctx, heartbeatEvent("lic-a", t0, wire.StateRunning), livestate.ViewFleet)
	if frags := m.Apply(ctx, heartbeatEvent("lic-a", t0.Add(time.Second), wire.StateRunning), livestate.ViewFleet); hasName(frags, ui.EventServersChanged) {
		t.Errorf("a heartbeat without a state change triggers a Servers refetch")
	}
	// A label arriving (an instance first created by its status event) or
	// changing is shown: the table refetches.
	named := heartbeatEvent("lic-a", t0.Add(1500*time.Millisecond), wire.StateRunning)
	named.Heartbeat.Heartbeat.Instances[0].Label = "Main world"
	if frags := m.Apply(ctx, named, livestate.ViewFleet); !hasName(frags, ui.EventServersChanged) {
		t.Errorf("a new label does not trigger a Servers refetch: %v", names(frags))
	}
	ev := livestate.Event{Kind: livestate.KindStatus, License: "lic-a", Instance: "game1", Received: t0.Add(2 * time.Second),
		Status: &store.Event{License: "lic-a", Instance: "game1", At: t0.Add(2 * time.Second), State: wire.StateCrashed}}
	if frags := m.Apply(ctx, ev, livestate.ViewFleet); !hasName(frags, ui.EventServersChanged) {
		t.Errorf("a crash does not trigger a Servers refetch: %v", names(frags))
	}
	// A page rendered before the crash whose stream opens after it gets
	// the trigger in its snapshot.
	frags := m.(livestate.Snapshotter).Snapshot(ctx, livestate.Subscription{View: livestate.ViewFleet}, t0.Add(1750*time.Millisecond))
	if !hasName(frags, ui.EventServersChanged) {
		t.Errorf("a stream opened after a crash its page missed gets no Servers refetch: %v", names(frags))
	}
}

func hasName(frags []livestate.Fragment, name string) bool {
	_, ok := find(frags, name)
	return ok
}
