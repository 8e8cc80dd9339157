package social_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/browsertest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/store"
)

// TestSocial_Browser: the page in chromium shows the cluster's verdict,
// then a killed node turns it red without a reload.
func TestSocial_Browser(t *testing.T) {
	p := startSocialPanel(t)
	p.AddLicense(t, "lic-a")
	addSocialInstance(t, p, "lic-a", "ether10", "ether")
	addSocialInstance(t, p, "lic-a", "world10", "worldsrv")
	addSocialInstance(t, p, "lic-a", "ether11", "ether")
	addSocialInstance(t, p, "lic-a", "world11", "worldsrv")
	pw := p.AddUser(t, "root", auth.RoleAdmin)
	start := etherCluster(t, p.NATSURL, "social")
	n10, n11 := start(10), start(11)
	n10.ConnectWorld()
	n11.ConnectWorld()

	b := browsertest.New(t)
	tab := b.Tab(1280, 800)
	p.BrowserLogin(t, tab, "root", pw)
	var verdict string
	browsertest.Run(t, tab, 40*time.Second, "open social health: the cluster is healthy",
		chromedp.Navigate(p.URL+"/social"),
		chromedp.Poll(`(document.querySelector('[data-cluster="social"] [data-verdict]')||{}).textContent === "All 2 nodes healthy"`, nil,
			chromedp.WithPollingTimeout(35*time.Second)),
		chromedp.Text(`[data-verdict]`, &verdict, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, tab, "panel-social")

	n11.Kill()
	browsertest.Run(t, tab, 40*time.Second, "node 11 killed: the verdict changes without a reload",
		chromedp.Poll(`document.querySelector('[data-verdict]').textContent.startsWith("node 11: down, silent since")`, nil,
			chromedp.WithPollingTimeout(35*time.Second)),
		chromedp.WaitVisible(`tr[data-node="11"][data-state="down"]`, chromedp.ByQuery),
		chromedp.Text(`[data-verdict]`, &verdict, chromedp.ByQuery),
	)
	if !strings.HasPrefix(verdict, "node 11: down") {
		t.Fatalf("verdict %q", verdict)
	}
	browsertest.Screenshot(t, tab, "panel-social-down")
	phone := b.Tab(390, 844)
	p.BrowserLogin(t, phone, "root", pw)
	browsertest.Run(t, phone, 20*time.Second, "social health on a phone",
		chromedp.Navigate(p.URL+"/social"), chromedp.WaitVisible(`[data-verdict]`, chromedp.ByQuery))
	browsertest.Screenshot(t, phone, "panel-social-phone")
	if errs := b.Errors(); len(errs) > 0 {
		t.Fatalf("page errors: %v", errs)
	}
}

// TestSocial_Browser_WorldStoppedByAnOperator: a real ether node of lic-a
// whose world tells it who it is (WorldInfo over the link); the operator
// ada stops the world (the audit log has her stop) and its link goes down:
// the page says "stopped", by ada, in grey, not "broken".
func TestSocial_Browser_WorldStoppedByAnOperator(t *testing.T) {
	p := startSocialPanel(t)
	p.AddLicense(t, "lic-a")
	addSocialInstance(t, p, "lic-a", "ether10", "ether")
	addSocialInstance(t, p, "lic-a", "world10", "worldsrv")
	pw := p.AddUser(t, "root", auth.RoleAdmin)
	n10 := etherCluster(t, p.NATSURL, "social")(10, runAs("lic-a", "ether10")...)
	world := n10.ConnectWorld()
	for _, m := range []proto.Message{proto.WorldRegister{NodeID: 10},
		proto.WorldInfo{License: []byte("lic-a"), Instance: []byte("world10"), PublicURL: []byte("http://127.0.0.1:8080/client?world=1")}} {
		if err := proto.WriteFrame(world, m); err != nil {
			t.Fatal(err)
		}
	}

	b := browsertest.New(t)
	tab := b.Tab(1280, 800)
	p.BrowserLogin(t, tab, "root", pw)
	browsertest.Run(t, tab, 40*time.Second, "the node names its world",
		chromedp.Navigate(p.URL+"/social"),
		chromedp.WaitVisible(`tr[data-node="10"] a[href="/hosts/lic-a/instances/world10"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`tr[data-node="10"] a[href="/hosts/lic-a/instances/ether10"]`, chromedp.ByQuery),
	)
	stoppedAt := time.Now().UTC().Truncate(time.Second)
	ctx := context.Background()
	if err := p.Store.RecordAudit(ctx, store.AuditEntry{At: stoppedAt, UserName: "ada", Action: "instance.power",
		License: "lic-a", Instance: "world10", Target: "stop", Result: store.AuditOK}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Store.Pool().Exec(ctx, `UPDATE panel_instances SET state = 'stopped' WHERE instance_id = 'world10'`); err != nil {
		t.Fatal(err)
	}
	world.Close()
	want := "node 10: world world10 stopped by ada at " + stoppedAt.Format("15:04:05 UTC")
	var verdict, badge string
	browsertest.Run(t, tab, 40*time.Second, "the world stopped by ada: stopped, not broken",
		chromedp.Poll(`(document.querySelector('[data-verdict]')||{}).textContent === `+strconv.Quote(want), nil,
			chromedp.WithPollingTimeout(35*time.Second)),
		chromedp.Text(`[data-cluster="social"] .verdict .badge`, &badge, chromedp.ByQuery),
		chromedp.Text(`[data-verdict]`, &verdict, chromedp.ByQuery),
	)
	if badge != "stopped" || verdict != want {
		t.Fatalf("badge %q, verdict %q; want stopped, %q", badge, verdict, want)
	}
	browsertest.Screenshot(t, tab, "panel-social-world-stopped")
	if errs := b.Errors(); len(errs) > 0 {
		t.Fatalf("page errors: %v", errs)
	}
}
