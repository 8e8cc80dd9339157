//go:build unix

package reachui_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/browsertest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/fleetui"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/reach"
	"github.com/corrosion/corrosion/panel/reachui"
	"github.com/corrosion/corrosion/panel/store"
)

// wholePanel is the fleet pages and the reachability feature as serve
// wires them (dev's probe policy: the fleet is on loopback).
func wholePanel(t *testing.T) *paneltest.Panel {
	t.Helper()
	return paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		pr, err := reach.New(reach.Options{AllowPrivate: true, Timeout: time.Second, Logger: d.Logger})
		if err != nil {
			t.Fatal(err)
		}
		auto := reachui.NewAuto(d.Store, pr, reachui.AutoOptions{Logger: d.Logger})
		d.Go(func(ctx context.Context) { _ = auto.Run(ctx) })
		paneltest.StartIngest(t, d, auto.Committed)
		hub, err := fleetui.NewLive(livestate.Config{Tick: 100 * time.Millisecond}, d.NC, d.Store, d.Logger, nil)
		if err != nil {
			t.Fatal(err)
		}
		d.Go(func(ctx context.Context) { _ = hub.Run(ctx) })
		return []httpx.Feature{fleetui.New(fleetui.Deps{Store: d.Store, Agents: d.Agents, Live: hub, Logger: d.Logger}),
			reachui.New(reachui.Deps{Store: d.Store, Prober: pr})}
	}})
}

// An operator checks an instance's reachability from its page: the card
// shows each declared port's result in words; a viewer sees the result
// with the button disabled; the Servers page shows the players the probe
// saw, the verdict, and a build with "update available".
func TestBrowser_ReachabilityCardAndServersColumns(t *testing.T) {
	p := wholePanel(t)
	p.AddLicense(t, "lic-a")
	p.AddLicense(t, "lic-b")
	g := newGame(t)
	paneltest.StartAgentWith(t, p.NATSURL, "lic-a", `public_address = "127.0.0.1"`,
		paneltest.AgentInstance{ID: "rust1", Game: "rust", Label: "Main 2x Vanilla", Extra: portsTOML(g.ports())})
	seedBuilds(t, p.Store, "lic-b")
	pw := p.AddUser(t, "olga", auth.RoleOperator, "lic-a", "lic-b")
	vpw := p.AddUser(t, "vera", auth.RoleViewer, "lic-a", "lic-b")

	b := browsertest.New(t)
	tab := b.Tab(1280, 900)
	p.BrowserLogin(t, tab, "olga", pw)
	var loaded bool
	browsertest.Run(t, tab, 30*time.Second, "the instance page's card: not probed yet",
		chromedp.Navigate(p.URL+"/hosts/lic-a/instances/rust1"),
		chromedp.Poll(`document.readyState === "complete" && !!window.htmx`, &loaded),
		chromedp.WaitVisible(`//div[@id="reach"]//p[contains(., "Not probed yet")]`, chromedp.BySearch),
	)
	browsertest.Run(t, tab, 30*time.Second, "Check reachability: each port in words",
		chromedp.Click(`#reach button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#reach [data-verdict="reachable"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//tr[@data-port="query" and @data-ok="true"]/td[contains(., "7 of 50 players")]`, chromedp.BySearch),
		chromedp.WaitVisible(`//tr[@data-port="rcon" and @data-ok="true"]/td[contains(., "accepts TCP connections")]`, chromedp.BySearch),
		chromedp.WaitVisible(`//tr[@data-port="game" and @data-ok="false"]/td[contains(., "not verifiable")]`, chromedp.BySearch),
	)
	browsertest.Screenshot(t, tab, "panel-instance-reach")
	browsertest.Run(t, tab, 20*time.Second, "a second click at once is refused in words",
		chromedp.Click(`#reach button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//span[@data-error and contains(., "retry in")]`, chromedp.BySearch),
	)

	browsertest.Run(t, tab, 30*time.Second, "the Servers page: players, verdict, build and update available",
		chromedp.Navigate(p.URL+"/servers"),
		chromedp.WaitVisible(`//tr[@id="server-lic-a-rust1"]/td[contains(@class, "players") and normalize-space(.)="7"]`, chromedp.BySearch),
		chromedp.WaitVisible(`#server-lic-a-rust1 td.reach .badge.st-running`, chromedp.ByQuery),
		chromedp.WaitVisible(`//tr[@id="server-lic-b-srv1"]/td[contains(@class, "build") and contains(., "16843210") and contains(., "update available")]`, chromedp.BySearch),
		chromedp.WaitVisible(`//tr[@id="server-lic-b-srv2"]/td[contains(@class, "build") and contains(., "16843211") and not(contains(., "update available"))]`, chromedp.BySearch),
		chromedp.WaitVisible(`//tr[@id="server-lic-b-srv1"]/td[contains(@class, "players") and normalize-space(.)="—"]`, chromedp.BySearch),
	)
	browsertest.Screenshot(t, tab, "panel-servers-reach")
	browsertest.Run(t, tab, 20*time.Second, "filters keep working: stopped only",
		chromedp.Navigate(p.URL+"/servers?state=stopped"),
		chromedp.WaitVisible(`#server-lic-a-rust1`, chromedp.ByQuery),
		chromedp.WaitNotPresent(`#server-lic-b-srv1`, chromedp.ByQuery),
	)

	vtab := b.Tab(1280, 900)
	p.BrowserLogin(t, vtab, "vera", vpw)
	browsertest.Run(t, vtab, 30*time.Second, "a viewer sees the result, the button disabled",
		chromedp.Navigate(p.URL+"/hosts/lic-a/instances/rust1"),
		chromedp.WaitVisible(`#reach [data-verdict="reachable"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#reach button[disabled]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//div[@id="reach"]//span[contains(., "you are a viewer")]`, chromedp.BySearch),
	)
	browsertest.Screenshot(t, vtab, "panel-instance-reach-viewer")
	if errs := b.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %v", errs)
	}
}

// seedBuilds writes a heartbeat of license's host with two running
// servers, one whose agent saw a newer build, as ingest would.
func seedBuilds(t *testing.T, st *store.Store, license string) {
	t.Helper()
	now := time.Now().UTC()
	hb := wire.Heartbeat{Schema: wire.Schema, Timestamp: now, Agent: wire.AgentInfo{Version: "1.0.0", OS: "linux", Arch: "x86_64"},
		Host: wire.HostInfo{Hostname: "steam-host"}, Instances: []wire.InstanceReport{
			{ID: "srv1", Game: "rust", State: wire.StateRunning, Build: "16843210", AvailableBuild: "16843299"},
			{ID: "srv2", Game: "valheim", State: wire.StateRunning, Build: "16843211", AvailableBuild: "16843211"}}}
	raw, err := json.Marshal(hb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ApplyBatch(context.Background(), store.Batch{Heartbeats: []store.HeartbeatRow{
		{License: license, Received: now, Heartbeat: hb, JSON: raw}}, Messages: map[string]int64{license: 1}}); err != nil {
		t.Fatal(err)
	}
}
