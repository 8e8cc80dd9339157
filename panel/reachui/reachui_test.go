package reachui_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/a2s"
	"github.com/corrosion/corrosion/internal/a2s/a2stest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/reach"
	"github.com/corrosion/corrosion/panel/reachui"
	"github.com/corrosion/corrosion/panel/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// game is a game server on loopback: a TCP port that counts the
// connections it accepts, a Steam query port (internal/a2stest's A2S
// server) and a UDP game port nothing answers.
type game struct {
	tcp      net.Listener
	accepted atomic.Int64
	query    *a2stest.Server
	udpPort  int
}

func newGame(t *testing.T) *game {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &game{tcp: ln, query: a2stest.New(t, a2stest.Options{Challenge: true,
		Info: a2s.Info{Name: "Test World", Map: "island", Players: 7, MaxPlayers: 50, ServerType: 'd', Environment: 'l'}})}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			g.accepted.Add(1)
			_ = c.Close()
		}
	}()
	// A UDP port that is free (bound, read, closed): nothing answers there.
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.udpPort = pc.LocalAddr().(*net.UDPAddr).Port
	_ = pc.Close()
	return g
}

// ports are the game's ports as an instance declares them.
func (g *game) ports() []wire.BoundPortInfo {
	return []wire.BoundPortInfo{
		{Name: "game", Protocol: "udp", Port: g.udpPort},
		{Name: "rcon", Protocol: "tcp", Port: g.tcp.Addr().(*net.TCPAddr).Port},
		{Name: wire.QueryPortName, Protocol: "udp", Port: g.query.Port()},
	}
}

// seed writes a heartbeat of license's host at address with one running
// instance "rust1" declaring ports, as ingest would.
func seed(t *testing.T, st *store.Store, license, address string, ports []wire.BoundPortInfo) {
	t.Helper()
	now := time.Now().UTC()
	hb := wire.Heartbeat{Schema: wire.Schema, Timestamp: now, Agent: wire.AgentInfo{Version: "1.0.0", OS: "linux", Arch: "x86_64"},
		Host:      wire.HostInfo{Hostname: "h-" + license, PublicAddress: address},
		Instances: []wire.InstanceReport{{ID: "rust1", Game: "rust", State: wire.StateRunning, Ports: ports}}}
	raw, err := json.Marshal(hb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ApplyBatch(context.Background(), store.Batch{Heartbeats: []store.HeartbeatRow{
		{License: license, Received: now, Heartbeat: hb, JSON: raw}}, Messages: map[string]int64{license: 1}}); err != nil {
		t.Fatal(err)
	}
}

// startPanel is a test panel with the reachability feature; dev lets the
// probe reach loopback (corrosion-panel dev), !dev is serve's policy.
func startPanel(t *testing.T, dev bool) *paneltest.Panel {
	t.Helper()
	return paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		pr, err := reach.New(reach.Options{AllowPrivate: dev, Timeout: time.Second, Logger: d.Logger})
		if err != nil {
			t.Fatal(err)
		}
		return []httpx.Feature{reachui.New(reachui.Deps{Store: d.Store, Prober: pr})}
	}})
}

func htmxPost(t *testing.T, c *paneltest.Client, path string) (int, string) {
	t.Helper()
	req := c.NewPost(path, nil)
	req.Header.Set("HX-Request", "true")
	resp := c.Do(req)
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, b.String()
}

const reachPath = "/hosts/lic-a/instances/rust1/reach"

// In dev (the policy corrosion-panel dev sets), an operator's click probes
// the reported loopback address on exactly the declared ports: the TCP
// port accepts, the query port answers A2S with its players, the plain UDP
// port is said to be unverifiable. The result is stored, shown in words,
// and audited; a second click at once is rate limited.
func TestProbe_DevProbesLoopback(t *testing.T) {
	p := startPanel(t, true)
	p.AddLicense(t, "lic-a")
	g := newGame(t)
	seed(t, p.Store, "lic-a", "127.0.0.1", g.ports())
	pw := p.AddUser(t, "olga", auth.RoleOperator, "lic-a")
	c := p.Client(t, "olga", pw)

	status, body := htmxPost(t, c, reachPath)
	if status != http.StatusOK {
		t.Fatalf("probe: %d %s", status, body)
	}
	for _, want := range []string{`data-verdict="reachable"`, "accepts TCP connections", `Steam query answers as &#34;Test World&#34;, 7 of 50 players`,
		"not verifiable from outside", `&#34;direction&#34;: &#34;inbound&#34;`, "Check reachability"} {
		if !strings.Contains(body, want) {
			t.Errorf("card lacks %q:\n%s", want, body)
		}
	}
	if n := g.accepted.Load(); n != 1 {
		t.Errorf("the TCP port accepted %d connections, want 1", n)
	}
	if n := g.query.Requests(); n < 1 {
		t.Errorf("the query port got %d A2S requests", n)
	}
	last, ok, err := p.Store.InstanceProbe(context.Background(), "lic-a", "rust1")
	if err != nil || !ok {
		t.Fatalf("stored probe: ok %v err %v", ok, err)
	}
	if last.Verdict != reach.VerdictReachable || last.Players == nil || *last.Players != 7 || len(last.Report.Results) != 3 ||
		last.Report.Direction != wire.DirectionInbound {
		t.Fatalf("stored probe %+v", last)
	}
	in, err := p.Store.Instance(context.Background(), "lic-a", "rust1")
	if err != nil || in.ProbePlayers == nil || *in.ProbePlayers != 7 {
		t.Fatalf("instance row: %+v %v", in, err)
	}
	entries, err := p.Store.Audit(context.Background(), store.AuditFilter{Action: "instance.reach"})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].UserName != "olga" || entries[0].Result != store.AuditOK || entries[0].Instance != "rust1" {
		t.Fatalf("audit %+v", entries)
	}

	status, body = htmxPost(t, c, reachPath)
	if status != http.StatusTooManyRequests || !strings.Contains(body, "retry in") {
		t.Fatalf("a second probe at once: %d %q", status, body)
	}
	if n := g.accepted.Load(); n != 1 {
		t.Errorf("the rate-limited probe connected: %d connections", n)
	}
}

// serve's policy refuses the loopback address, saying so in the result,
// and connects to nothing.
func TestProbe_ServeRefusesLoopback(t *testing.T) {
	p := startPanel(t, false)
	p.AddLicense(t, "lic-a")
	g := newGame(t)
	seed(t, p.Store, "lic-a", "127.0.0.1", g.ports())
	pw := p.AddUser(t, "olga", auth.RoleOperator, "lic-a")
	c := p.Client(t, "olga", pw)

	status, body := htmxPost(t, c, reachPath)
	if status != http.StatusOK {
		t.Fatalf("probe: %d %s", status, body)
	}
	for _, want := range []string{`data-verdict="not probed"`, "refused: 127.0.0.1 is a loopback address; the panel probes only public addresses"} {
		if !strings.Contains(body, want) {
			t.Errorf("card lacks %q:\n%s", want, body)
		}
	}
	if n, q := g.accepted.Load(), g.query.Requests(); n != 0 || q != 0 {
		t.Fatalf("serve probed loopback: %d TCP connections, %d A2S requests", n, q)
	}
}

// A viewer sees the result, never probes: the button is disabled with the
// reason, and a POST is refused (and audited as denied). A host without a
// public address, or an instance without ports, says what to set.
func TestProbe_ViewerAndNothingToProbe(t *testing.T) {
	p := startPanel(t, true)
	p.AddLicense(t, "lic-a")
	seed(t, p.Store, "lic-a", "", nil)
	vpw := p.AddUser(t, "vera", auth.RoleViewer, "lic-a")
	v := p.Client(t, "vera", vpw)
	status, body := v.Get(reachPath)
	if status != http.StatusOK || !strings.Contains(body, "you are a viewer") || !strings.Contains(body, "disabled") {
		t.Fatalf("viewer card: %d %s", status, body)
	}
	if status, _ := htmxPost(t, v, reachPath); status != http.StatusForbidden {
		t.Fatalf("viewer probe: %d, want 403", status)
	}
	entries, err := p.Store.Audit(context.Background(), store.AuditFilter{Action: "instance.reach", Result: store.AuditDenied})
	if err != nil || len(entries) != 1 {
		t.Fatalf("denied audit %+v %v", entries, err)
	}

	pw := p.AddUser(t, "olga", auth.RoleOperator, "lic-a")
	c := p.Client(t, "olga", pw)
	if _, body := c.Get(reachPath); !strings.Contains(body, "set public_address in the [agent] table") {
		t.Fatalf("no address: %s", body)
	}
	status, body = htmxPost(t, c, reachPath)
	if status != http.StatusConflict || !strings.Contains(body, "nothing to probe") || !strings.Contains(body, "no public address") {
		t.Fatalf("probe without an address: %d %q", status, body)
	}
	seed(t, p.Store, "lic-a", "127.0.0.1", nil)
	if _, body := c.Get(reachPath); !strings.Contains(body, "declares no ports") {
		t.Fatalf("no ports: %s", body)
	}
}
