package login_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/chromedp/chromedp"

	"github.com/corrosion/corrosion/internal/browsertest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/web/ui"
)

// home stands in for the fleet page (/) and the landing page (the Servers
// page): framed pages with the log-out button.
type home struct{}

func (home) Routes() []httpx.Route {
	page := func(id, title string, nav ui.Nav) httpx.Handler {
		return func(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			ctx := templ.WithChildren(r.Context(), templ.Raw(`<h1 id="`+id+`">`+title+`</h1>`))
			return ui.Layout(server.PageFor(p, title, nav)).Render(ctx, w)
		}
	}
	return []httpx.Route{
		{Pattern: "GET /{$}", Need: httpx.View, Handler: page("fleet", "Fleet", ui.NavFleet)},
		{Pattern: "GET /servers", Need: httpx.View, Handler: page("home", "Servers", ui.NavServers)},
	}
}

func TestLogin_Browser(t *testing.T) {
	p := paneltest.Start(t, paneltest.Options{Features: func(paneltest.Deps) []httpx.Feature { return []httpx.Feature{home{}} }})
	pw := p.AddUser(t, "alice", auth.RoleOperator)
	b := browsertest.New(t)
	tab := b.Tab(1280, 800)

	browsertest.Run(t, tab, 20*time.Second, "open the fleet, land on the login page",
		chromedp.Navigate(p.URL+"/"),
		chromedp.WaitVisible(`#login-name`, chromedp.ByQuery),
	)
	var loc string
	browsertest.Run(t, tab, 5*time.Second, "location", chromedp.Location(&loc))
	if !strings.HasSuffix(loc, "/login?next=%2F") {
		t.Fatalf("not logged in, / went to %s", loc)
	}
	browsertest.Screenshot(t, tab, "panel-login")
	var theme string
	// panel.js is deferred: a click before it has run would do nothing, so
	// wait for the page to finish loading, then for the attribute to appear.
	var loaded bool
	browsertest.Run(t, tab, 10*time.Second, "switch the theme on the login page",
		chromedp.Poll(`document.readyState === "complete"`, &loaded),
		chromedp.Click(`[data-theme-toggle]`, chromedp.ByQuery),
		chromedp.Poll(`document.documentElement.getAttribute("data-theme")`, &theme),
	)
	if theme != "dark" && theme != "light" {
		t.Fatalf("theme toggle set data-theme %q", theme)
	}
	browsertest.Screenshot(t, tab, "panel-login-"+theme)

	wrongPassword(t, tab)

	p.BrowserLogin(t, tab, "alice", pw)
	var who string
	browsertest.Run(t, tab, 20*time.Second, "logged in: the landing page (servers) with the operator's name",
		chromedp.WaitVisible(`#home`, chromedp.ByQuery),
		chromedp.Text(`.whoami .user`, &who, chromedp.ByQuery),
	)
	if !strings.Contains(who, "alice") {
		t.Fatalf("top bar shows %q", who)
	}

	var flash string
	browsertest.Run(t, tab, 20*time.Second, "log out",
		chromedp.Click(`form[action="/logout"] button`, chromedp.ByQuery),
		chromedp.WaitVisible(`#login-name`, chromedp.ByQuery),
		chromedp.Text(`.flash`, &flash, chromedp.ByQuery),
	)
	if flash != "You are logged out." {
		t.Fatalf("after logout the page says %q", flash)
	}
	browsertest.Run(t, tab, 20*time.Second, "the fleet needs a login again",
		chromedp.Navigate(p.URL+"/"),
		chromedp.WaitVisible(`#login-name`, chromedp.ByQuery),
	)

	phone := b.Tab(390, 844)
	browsertest.Run(t, phone, 20*time.Second, "login on a phone", chromedp.Navigate(p.URL+"/login"), chromedp.WaitVisible(`#login-name`, chromedp.ByQuery))
	browsertest.Screenshot(t, phone, "panel-login-phone")
	if errs := b.Errors(); len(errs) > 0 {
		t.Fatalf("page errors: %v", errs)
	}
}

// wrongPassword submits a wrong password: the page says so in words and
// keeps the name typed.
func wrongPassword(t *testing.T, tab context.Context) {
	t.Helper()
	var msg string
	browsertest.Run(t, tab, 20*time.Second, "wrong password",
		chromedp.SendKeys(`#login-name`, "alice", chromedp.ByQuery),
		chromedp.SendKeys(`#login-password`, "not the password", chromedp.ByQuery),
		chromedp.Click(`button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-login-error]`, chromedp.ByQuery),
		chromedp.Text(`[data-login-error]`, &msg, chromedp.ByQuery),
	)
	if msg != "Wrong username or password." {
		t.Fatalf("wrong password shows %q", msg)
	}
	var name string
	browsertest.Run(t, tab, 5*time.Second, "the name is kept", chromedp.Value(`#login-name`, &name, chromedp.ByQuery))
	if name != "alice" {
		t.Fatalf("name field after a failed login: %q", name)
	}
	browsertest.Screenshot(t, tab, "panel-login-error")
}
