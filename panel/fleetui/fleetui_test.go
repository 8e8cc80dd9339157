package fleetui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/ether/health"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/fleetui"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

func TestFleet_ShowsHostAfterFirstHeartbeat(t *testing.T) {
	p := startPanel(t)
	p.AddLicense(t, "lic-a")
	pw := p.AddUser(t, "ada", auth.RoleAdmin)
	c := p.Client(t, "ada", pw)

	status, body := c.Get("/")
	if status != http.StatusOK || !strings.Contains(body, "no heartbeat yet") {
		t.Fatalf("fleet before the agent: %d, want the license waiting for its first heartbeat:\n%s", status, body)
	}
	_, live := openStream(t, p, c, "/live/fleet")
	paneltest.StartAgent(t, p.NATSURL, "lic-a", paneltest.AgentInstance{ID: "game1", Autostart: true},
		paneltest.AgentInstance{ID: "world10", Game: "worldsrv", Unmanaged: true})

	// Live: the row's cells arrive by themselves, online, and the page is
	// told a host it may not list has appeared.
	live.waitFor(t, "hostbadge-lic-a", "st-online")
	live.waitFor(t, "fleet-changed", "")
	// And a fresh load from the store shows it too.
	poll.Until(t, 20*time.Second, func() error {
		_, body := c.Get("/")
		if !strings.Contains(body, `badge st-online`) || !strings.Contains(body, "1 running") {
			return fmt.Errorf("fleet does not show lic-a online with 1 running instance")
		}
		return nil
	})
	// A world's overview links its browser client only once the world has
	// reported its URL (through its sidecar's health snapshot): never a
	// guess from its id and the panel's host.
	if _, body := c.Get("/hosts/lic-a/instances/world10"); strings.Contains(body, "/client?world=") {
		t.Errorf("world10's overview links a client it never reported")
	}
	reported, _ := json.Marshal(health.Snapshot{Node: 10, Cluster: "ether", Time: time.Now(), WorldLink: health.LinkUp,
		World: &health.World{License: "lic-a", Instance: "world10", PublicURL: "https://play.example:9443/client?world=1"}})
	poll.Until(t, 20*time.Second, func() error {
		if err := p.NC.Publish(health.Subject("ether", 10), reported); err != nil {
			return err
		}
		_, body := c.Get("/hosts/lic-a/instances/world10")
		if !strings.Contains(body, `href="https://play.example:9443/client?world=1"`) {
			return fmt.Errorf("world10's overview does not link the client URL it reported")
		}
		return nil
	})
	if _, body := c.Get("/hosts/lic-a/instances/game1"); strings.Contains(body, "/client?world=") {
		t.Errorf("a generic instance links a world client")
	}
	for _, path := range []string{"/hosts/nope", "/hosts/lic-a/instances/nope", "/hosts/bad%20id", "/hosts/lic-a/instances/Bad"} {
		if status, body := c.Get(path); status != http.StatusNotFound || !strings.Contains(body, "there is no") && !strings.Contains(body, "has no instance") {
			t.Errorf("GET %s: %d, want 404 in words", path, status)
		}
	}
	_, body = c.Get("/?q=nothing-matches-this")
	if !strings.Contains(body, "No host matches this filter") {
		t.Errorf("a search with no match shows no designed empty state:\n%s", body)
	}
	_, body = c.Get("/?online=offline")
	if strings.Contains(body, `id="host-lic-a"`) {
		t.Errorf("the offline filter lists the online host")
	}
	_, body = c.Get("/?state=running")
	if !strings.Contains(body, `id="host-lic-a"`) {
		t.Errorf("the state filter hides a host with a running instance")
	}
}

func TestFleet_EmptyState(t *testing.T) {
	p := startPanel(t)
	pw := p.AddUser(t, "ada", auth.RoleAdmin)
	_, body := p.Client(t, "ada", pw).Get("/")
	if !strings.Contains(body, "No hosts yet") || !strings.Contains(body, "license add") {
		t.Fatalf("empty fleet does not say how to add a host:\n%s", body)
	}
}

func TestPower_StopThenStart_ReachesGameAndLiveStream(t *testing.T) {
	p := startPanel(t)
	p.AddLicense(t, "lic-a")
	pw := p.AddUser(t, "olga", auth.RoleOperator, "lic-a")
	c := p.Client(t, "olga", pw)
	pidFile := filepath.Join(t.TempDir(), "game1.pid")
	paneltest.StartAgent(t, p.NATSURL, "lic-a",
		paneltest.AgentInstance{ID: "game1", Autostart: true, Args: []string{"-pid-file", pidFile}})
	pid := gamePID(t, pidFile)
	poll.True(t, 20*time.Second, "instance page renders", func() bool {
		status, _ := c.Get("/hosts/lic-a/instances/game1")
		return status == http.StatusOK
	})
	_, live := openStream(t, p, c, "/live/hosts/lic-a?instance=game1")
	_, hostLive := openStream(t, p, c, "/live/hosts/lic-a")

	power(t, c, "stop", http.StatusAccepted)
	poll.True(t, 20*time.Second, "the game process exits", func() bool { return !alive(pid) })
	live.waitFor(t, "badge-game1", "st-stopped")
	live.waitFor(t, "power-game1", `value="start"`)
	hostLive.waitFor(t, "badge-game1", "st-stopped")

	_ = os.Remove(pidFile)
	power(t, c, "start", http.StatusAccepted)
	pid2 := gamePID(t, pidFile)
	if pid2 == pid || !alive(pid2) {
		t.Fatalf("start: pid %d (before %d), alive %v", pid2, pid, alive(pid2))
	}
	live.waitFor(t, "badge-game1", "st-running")
	live.waitFor(t, "tl-game1", "")

	// The timeline shows the stop and the start, newest first.
	poll.Until(t, 20*time.Second, func() error {
		_, body := c.Get("/hosts/lic-a/instances/game1")
		i, j := strings.Index(body, "badge st-running"), strings.Index(body, "badge st-stopped")
		if !strings.Contains(body, `id="timeline"`) || j < 0 || strings.LastIndex(body, "badge st-running") < j {
			return fmt.Errorf("timeline lacks stopped then running (running at %d, stopped at %d)", i, j)
		}
		return nil
	})
	entries, err := p.Store.Audit(context.Background(), store.AuditFilter{Action: "instance.power"})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Target != "start" || entries[1].Target != "stop" || entries[0].Result != store.AuditOK {
		t.Fatalf("audit rows %+v, want stop then start, ok", entries)
	}
}

func TestPower_RefusalsInWords(t *testing.T) {
	p := startPanel(t)
	p.AddLicense(t, "lic-a")
	p.AddLicense(t, "lic-off")
	opw := p.AddUser(t, "olga", auth.RoleOperator, "lic-a", "lic-off")
	vpw := p.AddUser(t, "vera", auth.RoleViewer, "lic-a")
	op, viewer := p.Client(t, "olga", opw), p.Client(t, "vera", vpw)
	pidFile := filepath.Join(t.TempDir(), "game1.pid")
	paneltest.StartAgent(t, p.NATSURL, "lic-a",
		paneltest.AgentInstance{ID: "game1", Autostart: true, Args: []string{"-pid-file", pidFile}},
		// slow to stop: ignores its stop line and SIGTERM (killed after 2 s)
		paneltest.AgentInstance{ID: "slow", Autostart: true, Args: []string{"-stop-line", "", "-ignore-sigterm"}})
	pid := gamePID(t, pidFile)
	poll.True(t, 20*time.Second, "slow running", func() bool {
		in, err := p.Store.Instance(context.Background(), "lic-a", "slow")
		return err == nil && in.State == wire.StateRunning
	})

	if body := powerOn(t, op, "slow", "stop", http.StatusAccepted); body != "" {
		t.Errorf("accepted stop answered %q", body)
	}
	if body := powerOn(t, op, "slow", "start", http.StatusConflict); !strings.Contains(body, "another power action is running") {
		t.Errorf("start during a stop: %q", body)
	}
	if body := powerAs(t, viewer, "lic-a", "stop", http.StatusForbidden); !strings.Contains(body, "you are a viewer") {
		t.Errorf("viewer's refusal: %q", body)
	}
	if !alive(pid) {
		t.Fatal("a viewer's stop reached the game")
	}
	if body := powerAs(t, op, "lic-off", "stop", http.StatusServiceUnavailable); !strings.Contains(body, "not connected") {
		t.Errorf("no agent: %q", body)
	}
	if body := powerAs(t, op, "lic-a", "start", http.StatusConflict); !strings.Contains(body, "already running") {
		t.Errorf("start of a running instance: %q", body)
	}
	if body := powerAs(t, op, "lic-a", "explode", http.StatusBadRequest); !strings.Contains(body, "unknown power action") {
		t.Errorf("bad action: %q", body)
	}
	denied, err := p.Store.Audit(context.Background(), store.AuditFilter{Action: "instance.power", Result: store.AuditDenied})
	if err != nil {
		t.Fatal(err)
	}
	if len(denied) != 1 || denied[0].UserName != "vera" {
		t.Fatalf("denied audit rows %+v, want vera's", denied)
	}
}

func power(t *testing.T, c *paneltest.Client, action string, want int) {
	t.Helper()
	powerAs(t, c, "lic-a", action, want)
}

func powerAs(t *testing.T, c *paneltest.Client, license, action string, want int) string {
	t.Helper()
	return powerReq(t, c, license, "game1", action, want)
}

func powerOn(t *testing.T, c *paneltest.Client, instance, action string, want int) string {
	t.Helper()
	return powerReq(t, c, "lic-a", instance, action, want)
}

func powerReq(t *testing.T, c *paneltest.Client, license, instance, action string, want int) string {
	t.Helper()
	req := c.NewPost("/hosts/"+license+"/instances/"+instance+"/power", url.Values{"action": {action}})
	req.Header.Set("HX-Request", "true")
	resp := c.Do(req)
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = fmt.Fprint(&b, readAll(resp))
	if resp.StatusCode != want {
		t.Fatalf("power %s on %s: status %d, want %d: %s", action, license, resp.StatusCode, want, b.String())
	}
	return b.String()
}

func readAll(resp *http.Response) string {
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			return sb.String()
		}
	}
}

func TestScoping_OperatorSeesOnlyGrantedLicenses(t *testing.T) {
	p := startPanel(t)
	p.AddLicense(t, "lic-a")
	p.AddLicense(t, "lic-b")
	opw := p.AddUser(t, "olga", auth.RoleOperator, "lic-a")
	apw := p.AddUser(t, "ada", auth.RoleAdmin)
	op, admin := p.Client(t, "olga", opw), p.Client(t, "ada", apw)
	ctx := context.Background()
	publishHeartbeat(t, p, "lic-b", "secret-host", "v1")
	poll.Until(t, 20*time.Second, func() error {
		h, err := p.Store.Host(ctx, "lic-b")
		if err != nil || !h.Seen {
			return fmt.Errorf("lic-b not ingested: %v", err)
		}
		return nil
	})

	for _, path := range []string{"/hosts/lic-b", "/hosts/lic-b/instances/game1",
		"/live/hosts/lic-b", "/live/hosts/lic-b?instance=game1"} {
		if status, _ := openStream(t, p, op, path); status != http.StatusForbidden {
			t.Errorf("GET %s as an operator without the grant: %d, want 403", path, status)
		}
	}
	if body := powerAs(t, op, "lic-b", "stop", http.StatusForbidden); !strings.Contains(body, "no grant") {
		t.Errorf("power on another license: %q", body)
	}
	if _, body := op.Get("/"); strings.Contains(body, "lic-b") || strings.Contains(body, "secret-host") {
		t.Errorf("the operator's fleet lists another license's host")
	}
	publishHeartbeat(t, p, "ghost-1", "somewhere", "v1")
	poll.Until(t, 20*time.Second, func() error {
		if _, body := admin.Get("/"); !strings.Contains(body, "license nobody created: ghost-1") {
			return fmt.Errorf("the admin's fleet does not name the unknown license")
		}
		return nil
	})
	if _, body := op.Get("/"); strings.Contains(body, "ghost-1") {
		t.Errorf("an operator is shown unknown licenses")
	}

	_, opLive := openStream(t, p, op, "/live/fleet")
	_, adminLive := openStream(t, p, admin, "/live/fleet")
	_, opHost := openStream(t, p, op, "/live/hosts/lic-a")
	publishStatus(t, p, "lic-b", "game1", wire.StateCrashed)
	publishHeartbeat(t, p, "lic-b", "secret-host", "secret-version")
	publishHeartbeat(t, p, "lic-a", "own-host", "own-version") // after lic-b's: once it arrives, lic-b's would have
	opLive.waitFor(t, "host-agent-lic-a", "own-version")
	adminLive.waitFor(t, "host-agent-lic-b", "secret-version")
	opHost.waitFor(t, "hostbadge-lic-a", "online")
	for _, s := range []*stream{opLive, opHost} {
		for _, e := range s.all() {
			if strings.Contains(e.Name+e.Data, "lic-b") || strings.Contains(e.Data, "secret") {
				t.Fatalf("an operator's stream carried another license's event: %+v", e)
			}
		}
	}
}

// publishHeartbeat publishes a heartbeat as an agent of license would.
func publishHeartbeat(t *testing.T, p *paneltest.Panel, license, hostname, version string) {
	t.Helper()
	cpu := 12.5
	hb := wire.Heartbeat{Schema: wire.Schema, Timestamp: time.Now(), Agent: wire.AgentInfo{Version: version, OS: "linux", Arch: "amd64"},
		Host:      wire.HostInfo{Hostname: hostname, CPUPercent: &cpu},
		Instances: []wire.InstanceReport{{ID: "game1", Game: "generic", State: wire.StateRunning, PID: 42}}}
	publish(t, p, wire.HeartbeatSubject(license), hb)
}

func publishStatus(t *testing.T, p *paneltest.Panel, license, instance string, st wire.State) {
	t.Helper()
	publish(t, p, wire.StatusSubject(license, instance), wire.StatusEvent{Timestamp: time.Now(), InstanceID: instance,
		Event: wire.StateEvent{State: st, Message: "test"}})
}

func publish(t *testing.T, p *paneltest.Panel, subject string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.NC.Publish(subject, b); err != nil {
		t.Fatal(err)
	}
	if err := p.NC.Flush(); err != nil {
		t.Fatal(err)
	}
}

// An open stream does not outlive its operator's grant: revoked, the
// stream ends, and the browser's reconnect is refused.
func TestScoping_RevokedGrantEndsTheStream(t *testing.T) {
	p := startPanel(t)
	p.AddLicense(t, "lic-a")
	pw := p.AddUser(t, "olga", auth.RoleOperator, "lic-a")
	c := p.Client(t, "olga", pw)
	_, live := openStream(t, p, c, "/live/hosts/lic-a")
	_, fleet := openStream(t, p, c, "/live/fleet")
	ctx := context.Background()
	u, err := p.Store.UserByName(ctx, "olga")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Store.Revoke(ctx, u.ID, "lic-a"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*stream{live, fleet} {
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			t.Fatal("a stream outlived the grant it was opened with")
		}
	}
	if status, _ := openStream(t, p, c, "/live/hosts/lic-a"); status != http.StatusForbidden {
		t.Fatalf("reconnect after the revoke: %d, want 403", status)
	}
}

// Two replicas side by side: a power action through one reaches the game,
// and its new state reaches a browser held by the other (each replica
// serves its streams from its own subscriptions).
func TestReplicas_PowerOnOneStateLiveOnTheOther(t *testing.T) {
	p1 := startPanel(t)
	p2 := p1.Replica(t)
	p1.AddLicense(t, "lic-a")
	pw := p1.AddUser(t, "olga", auth.RoleOperator, "lic-a")
	c1, c2 := p1.Client(t, "olga", pw), p2.Client(t, "olga", pw)
	pidFile := filepath.Join(t.TempDir(), "game1.pid")
	paneltest.StartAgent(t, p1.NATSURL, "lic-a",
		paneltest.AgentInstance{ID: "game1", Autostart: true, Args: []string{"-pid-file", pidFile}})
	pid := gamePID(t, pidFile)
	_, live := openStream(t, p2, c2, "/live/hosts/lic-a?instance=game1")
	powerAs(t, c1, "lic-a", "stop", http.StatusAccepted)
	poll.True(t, 20*time.Second, "the game process exits", func() bool { return !alive(pid) })
	live.waitFor(t, "badge-game1", "st-stopped")
	poll.Until(t, 20*time.Second, func() error {
		if _, body := c2.Get("/hosts/lic-a"); !strings.Contains(body, "badge st-stopped") {
			return fmt.Errorf("replica 2's host page does not show game1 stopped")
		}
		return nil
	})
}

// The fleet page draws the same sparklines from the live model (seeded
// when the hub starts) as the store has, and takes them from the store for
// a host the model lacks.
func TestFleet_SparklinesFromTheLiveModelMatchTheStore(t *testing.T) {
	p := startPanel(t)
	ctx := context.Background()
	for i := range 3 {
		p.AddLicense(t, fmt.Sprintf("host-%04d", i))
	}
	writeHistory(t, p.Store, 3, 5)
	p.Restart(t) // the new hub's start seeds the model with this history
	if err := hubOf(t).Warm(ctx); err != nil {
		t.Fatal(err)
	}
	p.AddLicense(t, "host-0003") // after the seeding: the model does not hold it
	writeHistory(t, p.Store, 4, 5)
	hosts, err := p.Store.Hosts(ctx, store.HostFilter{Spark: fleetui.SparkSamples})
	if err != nil {
		t.Fatal(err)
	}
	pw := p.AddUser(t, "ada", auth.RoleAdmin)
	_, page := p.Client(t, "ada", pw).Get("/")
	for _, h := range hosts {
		var cpu []float64
		for _, s := range h.Samples {
			cpu = append(cpu, *s.CPUPercent)
		}
		want := ui.SparkPoints(cpu, 100, 80, 20)
		if got := sparkOf(t, page, h.License); len(cpu) < 2 || got != want {
			t.Errorf("%s: page sparkline %q, the store's %q", h.License, got, want)
		}
	}
}

// sparkOf is the points of a host row's sparkline in a fleet page.
func sparkOf(t *testing.T, page, license string) string {
	t.Helper()
	i := strings.Index(page, `id="host-`+license+`"`)
	if i < 0 {
		t.Fatalf("no row for %s", license)
	}
	row := page[i:]
	row = row[:strings.Index(row, "</tr>")]
	j := strings.Index(row, `points="`)
	if j < 0 {
		return ""
	}
	row = row[j+len(`points="`):]
	return row[:strings.IndexByte(row, '"')]
}

// writeHistory writes rounds heartbeats, 10 s apart, of the first n bench
// hosts (the same values for every host), as ingest would.
func writeHistory(t *testing.T, st *store.Store, n, rounds int) {
	t.Helper()
	start := time.Now().Add(-time.Duration(rounds) * 10 * time.Second)
	for round := range rounds {
		at := start.Add(time.Duration(round) * 10 * time.Second)
		batch := store.Batch{Messages: map[string]int64{}}
		for i := range n {
			l := fmt.Sprintf("host-%04d", i)
			hb := benchHeartbeat(l, 0, round, at)
			raw, _ := json.Marshal(hb)
			batch.Heartbeats = append(batch.Heartbeats, store.HeartbeatRow{License: l, Received: at, Heartbeat: hb, JSON: raw})
			batch.Messages[l]++
		}
		if _, err := st.ApplyBatch(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
	}
}
