package fleetui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/corrosion/corrosion/internal/browsertest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/paneltest"
)

func TestBrowser_FleetHostInstance_StopStartLive(t *testing.T) {
	p := startPanel(t)
	p.AddLicense(t, "lic-a")
	pw := p.AddUser(t, "ada", auth.RoleAdmin)
	// game1 ignores its stop line and SIGTERM: a stop stays "stopping" for
	// the agent's 2 s stop timeout, long enough to watch the badge move.
	agent := paneltest.StartAgent(t, p.NATSURL, "lic-a",
		paneltest.AgentInstance{ID: "game1", Label: "Main world", Autostart: true, Args: []string{"-stop-line", "", "-ignore-sigterm"}},
		paneltest.AgentInstance{ID: "game2", Label: "Test world"})

	b := browsertest.New(t)
	tab := b.Tab(1280, 800)
	p.BrowserLogin(t, tab, "ada", pw)
	browsertest.Run(t, tab, 30*time.Second, "fleet shows the host online",
		chromedp.Navigate(p.URL+"/"),
		chromedp.WaitVisible(`#host-lic-a .badge.st-online`, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, tab, "panel-fleet")
	browsertest.Run(t, tab, 20*time.Second, "open the host",
		chromedp.Click(`#host-lic-a a`, chromedp.ByQuery), // the row's cells are live; its link is never swapped
		chromedp.WaitVisible(`#inst-game1 .badge.st-running`, chromedp.ByQuery),
		chromedp.WaitVisible(`#chart-cpu`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-cpu-window]`, chromedp.ByQuery), // the card's CPU says its window
	)
	browsertest.Screenshot(t, tab, "panel-host")
	browsertest.Run(t, tab, 20*time.Second, "open the instance",
		chromedp.Click(`#inst-game1 a`, chromedp.ByQuery),
		chromedp.WaitVisible(`.instframe .livebadge .badge.st-running`, chromedp.ByQuery),
		chromedp.WaitVisible(`#timeline`, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, tab, "panel-instance")
	browsertest.Run(t, tab, 30*time.Second, "stop: stopping, then stopped, by itself",
		chromedp.WaitEnabled(`.pagehead button[data-power="stop"]`, chromedp.ByQuery),
		chromedp.Click(`.pagehead button[data-power="stop"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.livebadge .badge.st-stopping`, chromedp.ByQuery),
		chromedp.WaitVisible(`.livebadge .badge.st-stopped`, chromedp.ByQuery),
		chromedp.WaitEnabled(`.pagehead button[data-power="start"]`, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, tab, "panel-instance-stopped")
	browsertest.Run(t, tab, 30*time.Second, "start: running again, by itself",
		chromedp.Click(`.pagehead button[data-power="start"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.livebadge .badge.st-running`, chromedp.ByQuery),
		chromedp.WaitVisible(`#timeline tbody tr:nth-child(4)`, chromedp.ByQuery),
	)

	killWithConfirmation(t, tab)
	refusedThenOffline(t, tab, agent)

	phone := b.Tab(390, 844)
	p.BrowserLogin(t, phone, "ada", pw)
	browsertest.Run(t, phone, 20*time.Second, "fleet on a phone",
		chromedp.Navigate(p.URL+"/"),
		chromedp.WaitVisible(`#host-lic-a .badge.st-offline`, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, phone, "panel-fleet-phone")
	browsertest.Run(t, phone, 20*time.Second, "search as you type",
		chromedp.SendKeys(`input[data-search]`, "no-such-host", chromedp.ByQuery),
		chromedp.WaitVisible(`//div[@id="fleet-list"]//p[contains(., "No host matches")]`, chromedp.BySearch),
	)
	browsertest.Run(t, phone, 20*time.Second, "dark theme",
		chromedp.Navigate(p.URL+"/"),
		chromedp.WaitVisible(`#host-lic-a .badge.st-offline`, chromedp.ByQuery),
		chromedp.Click(`[data-theme-toggle]`, chromedp.ByQuery),
		chromedp.WaitVisible(`html[data-theme="dark"]`, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, phone, "panel-fleet-phone-dark")
	if errs := b.Errors(); len(errs) > 0 {
		t.Fatalf("page errors: %v", errs)
	}
}

// killWithConfirmation clicks Kill: a confirmation names the instance,
// and once accepted the instance stops by itself.
func killWithConfirmation(t *testing.T, tab context.Context) {
	t.Helper()
	asked := make(chan string, 1)
	chromedp.ListenTarget(tab, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			asked <- d.Message
			go func() { _ = chromedp.Run(tab, page.HandleJavaScriptDialog(true)) }()
		}
	})
	browsertest.Run(t, tab, 30*time.Second, "kill, confirmed",
		chromedp.WaitEnabled(`.pagehead button[data-power="kill"]`, chromedp.ByQuery),
		chromedp.Click(`.pagehead button[data-power="kill"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.livebadge .badge.st-stopped`, chromedp.ByQuery),
	)
	select {
	case msg := <-asked:
		if !strings.Contains(msg, "Kill game1?") {
			t.Errorf("the kill confirmation does not name its target: %q", msg)
		}
	default:
		t.Error("kill asked for no confirmation")
	}
}

// refusedThenOffline: the agent dies without a word; a click answers why
// it did nothing, and the host turns offline by itself once it has been
// silent for three heartbeat intervals.
func refusedThenOffline(t *testing.T, tab context.Context, agent *paneltest.Agent) {
	t.Helper()
	agent.Kill()
	browsertest.Run(t, tab, 30*time.Second, "a refused action says why",
		chromedp.WaitEnabled(`.pagehead button[data-power="start"]`, chromedp.ByQuery),
		chromedp.Click(`.pagehead button[data-power="start"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//span[@data-error][contains(., "not connected")]`, chromedp.BySearch),
	)
	browsertest.Run(t, tab, 40*time.Second, "the silent host turns offline",
		chromedp.WaitVisible(`.livebadge .badge.st-offline`, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, tab, "panel-instance-offline")
	browsertest.Run(t, tab, 20*time.Second, "the host page, offline",
		chromedp.Navigate(strings.TrimSuffix(currentURL(tab), "/instances/game1")),
		chromedp.WaitVisible(`#inst-game1 .badge.st-offline`, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, tab, "panel-host-offline")
}

// currentURL is the tab's current URL.
func currentURL(tab context.Context) string {
	var u string
	_ = chromedp.Run(tab, chromedp.Location(&u))
	return u
}
