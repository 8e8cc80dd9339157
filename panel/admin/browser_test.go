package admin_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corrosion/corrosion/internal/browsertest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/paneltest"
)

// TestAdmin_Browser: an admin adds a license and an operator with the
// page's forms, sees a refusal in words next to the form, and reads the
// audit log with a viewer's denied attempt in it.
func TestAdmin_Browser(t *testing.T) {
	p := startAdminPanel(t)
	pw := p.AddUser(t, "root", auth.RoleAdmin)
	b := browsertest.New(t)
	tab := b.Tab(1280, 900)
	p.BrowserLogin(t, tab, "root", pw)

	var flash string
	browsertest.Run(t, tab, 20*time.Second, "add a license with the form",
		chromedp.Navigate(p.URL+"/admin"),
		chromedp.SendKeys(`[data-add-license] input[name=id]`, "lic-a", chromedp.ByQuery),
		chromedp.SendKeys(`[data-add-license] input[name=label]`, "Demo host (corrosion-panel dev)", chromedp.ByQuery),
		chromedp.Click(`[data-add-license] button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`tr[data-license="lic-a"]`, chromedp.ByQuery),
		chromedp.Text(`.flash`, &flash, chromedp.ByQuery),
	)
	if flash != "License added." {
		t.Fatalf("flash %q", flash)
	}
	var cut bool // the label's input was 14em wide and cut it: "Demo host (corrosion-par"
	browsertest.Run(t, tab, 10*time.Second, "the whole label shows in its input", chromedp.Evaluate(
		`(() => { const i = document.querySelector('tr[data-license="lic-a"] input[name=label]'); return i.scrollWidth > i.clientWidth; })()`, &cut))
	if cut {
		t.Errorf("the license label %q is cut off in its input", "Demo host (corrosion-panel dev)")
	}
	browsertest.Run(t, tab, 20*time.Second, "add an operator with the form",
		chromedp.SendKeys(`[data-add-user] input[name=name]`, "bob", chromedp.ByQuery),
		chromedp.SendKeys(`[data-add-user] input[name=password]`, "a long enough password", chromedp.ByQuery),
		chromedp.Click(`[data-add-user] button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`tr[data-user="bob"]`, chromedp.ByQuery),
	)
	createFromUnknown(t, p, tab)
	var refusal string
	browsertest.Run(t, tab, 20*time.Second, "a duplicate license is refused in words next to the form",
		chromedp.SendKeys(`[data-add-license] input[name=id]`, "lic-a", chromedp.ByQuery),
		chromedp.Click(`[data-add-license] button[type=submit]`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('[data-add-license] [data-error]').textContent !== ""`, nil,
			chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.Text(`[data-add-license] [data-error]`, &refusal, chromedp.ByQuery),
	)
	if !strings.Contains(refusal, "license lic-a already exists") {
		t.Fatalf("refusal %q", refusal)
	}
	browsertest.Run(t, tab, 5*time.Second, "scroll to the top", chromedp.Evaluate(`window.scrollTo(0, 0)`, nil))
	browsertest.Screenshot(t, tab, "panel-admin")

	viewer := p.Client(t, "vic", p.AddUser(t, "vic", auth.RoleViewer))
	if status, _ := viewer.PostForm("/admin/licenses", url.Values{"id": {"lic-evil"}}); status != http.StatusForbidden {
		t.Fatalf("viewer add license: %d", status)
	}
	browsertest.Run(t, tab, 20*time.Second, "the audit log shows the changes and the denied attempt",
		chromedp.Navigate(p.URL+"/audit"),
		chromedp.WaitVisible(`tr.audit-denied`, chromedp.ByQuery),
	)
	browsertest.Screenshot(t, tab, "panel-audit")
	for _, e := range b.Errors() {
		// htmx logs a refused request (the 409 above) as a console error;
		// the refusal itself is asserted above. Anything else fails.
		if !strings.Contains(e, "Response Status Error Code 409 from /admin/licenses") {
			t.Errorf("page error: %s", e)
		}
	}
}

// createFromUnknown records heartbeats from two unknown licenses and
// creates one of them with its row's button.
func createFromUnknown(t *testing.T, p *paneltest.Panel, tab context.Context) {
	t.Helper()
	if _, err := p.Store.Pool().Exec(context.Background(), `INSERT INTO panel_unknown_licenses
		(license_id, first_seen, last_seen, messages, hostname) VALUES ('lic-new', now(), now(), 42, 'rack2-node7'),
		('lic-stray', now(), now(), 7, 'laptop')`); err != nil {
		t.Fatal(err)
	}
	browsertest.Run(t, tab, 20*time.Second, "create a license from its unknown heartbeats in one click",
		chromedp.Navigate(p.URL+"/admin#unknown"),
		chromedp.Click(`tr[data-unknown="lic-new"] button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`tr[data-license="lic-new"]`, chromedp.ByQuery),
		chromedp.WaitNotPresent(`tr[data-unknown="lic-new"]`, chromedp.ByQuery),
	)
}
