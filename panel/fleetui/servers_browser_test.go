package fleetui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corrosion/corrosion/internal/browsertest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/paneltest"
)

// An operator logs in and lands on their servers, searches as they type,
// filters by state (the plain form), and follows a row to its instance.
func TestBrowser_ServersLandingSearchFilter(t *testing.T) {
	p := startPanel(t)
	p.AddLicense(t, "lic-a")
	pw := p.AddUser(t, "olga", auth.RoleOperator, "lic-a")
	paneltest.StartAgent(t, p.NATSURL, "lic-a",
		paneltest.AgentInstance{ID: "game1", Label: "Main world", Autostart: true},
		paneltest.AgentInstance{ID: "game2", Label: "Test world"})

	b := browsertest.New(t)
	tab := b.Tab(1280, 800)
	p.BrowserLogin(t, tab, "olga", pw)
	browsertest.Run(t, tab, 30*time.Second, "login lands on the servers list; game1 turns running by itself",
		chromedp.WaitVisible(`#servers-list`, chromedp.ByQuery),
		chromedp.WaitVisible(`#server-lic-a-game1 .badge.st-running`, chromedp.ByQuery),
		chromedp.WaitVisible(`#server-lic-a-game2 .badge.st-stopped`, chromedp.ByQuery),
	)
	if u := currentURL(tab); !strings.HasSuffix(u, "/servers") {
		t.Fatalf("login landed on %s, want the servers list", u)
	}
	browsertest.Screenshot(t, tab, "panel-servers")

	var loaded bool // htmx is deferred: type once it has run
	browsertest.Run(t, tab, 20*time.Second, "search as you type",
		chromedp.Poll(`document.readyState === "complete" && !!window.htmx`, &loaded),
		chromedp.SendKeys(`input[data-search]`, "game2", chromedp.ByQuery), // the id: labels come with the next heartbeat
		chromedp.WaitNotPresent(`#server-lic-a-game1`, chromedp.ByQuery),
		chromedp.WaitVisible(`#server-lic-a-game2`, chromedp.ByQuery),
	)
	if u := currentURL(tab); !strings.Contains(u, "q=game2") {
		t.Errorf("the search is not in the address (hx-push-url): %s", u)
	}
	browsertest.Screenshot(t, tab, "panel-servers-search")
	browsertest.Run(t, tab, 20*time.Second, "filter by state: nothing running matches game2, said in words",
		chromedp.SetValue(`select[name=state]`, "running", chromedp.ByQuery),
		chromedp.Click(`form[role=search] button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//div[@id="servers-list"]//p[contains(., "No server matches")]`, chromedp.BySearch),
	)
	browsertest.Screenshot(t, tab, "panel-servers-nomatch")
	browsertest.Run(t, tab, 20*time.Second, "clear the search: the running server only",
		chromedp.Evaluate(`document.querySelector("input[data-search]").value = ""`, nil),
		chromedp.Click(`form[role=search] button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#server-lic-a-game1 .badge.st-running`, chromedp.ByQuery),
		chromedp.WaitNotPresent(`#server-lic-a-game2`, chromedp.ByQuery),
	)
	if u := currentURL(tab); !strings.Contains(u, "state=running") {
		t.Errorf("the filter is not in the address: %s", u)
	}
	browsertest.Run(t, tab, 20*time.Second, "follow the row to the instance page",
		chromedp.Click(`#server-lic-a-game1 a`, chromedp.ByQuery),
		chromedp.WaitVisible(`.instframe .livebadge .badge.st-running`, chromedp.ByQuery),
	)
	if u := currentURL(tab); !strings.HasSuffix(u, "/hosts/lic-a/instances/game1") {
		t.Errorf("the row led to %s", u)
	}
	browsertest.Screenshot(t, tab, "panel-servers-instance")

	phone := b.Tab(390, 844)
	p.BrowserLogin(t, phone, "olga", pw)
	browsertest.Run(t, phone, 20*time.Second, "servers on a phone",
		chromedp.WaitVisible(`#server-lic-a-game1 .badge.st-running`, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, phone, "panel-servers-phone")
	if errs := b.Errors(); len(errs) > 0 {
		t.Fatalf("page errors: %v", errs)
	}
}
