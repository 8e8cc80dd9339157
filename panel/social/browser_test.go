package social_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corrosion/corrosion/internal/browsertest"
	"github.com/corrosion/corrosion/panel/auth"
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
