package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// things is a small feature with one route of each kind; acts counts the
// handler runs of its state-changing routes.
type things struct{ acts *atomic.Int32 }

func (f things) Routes() []httpx.Route {
	ok := func(body string) httpx.Handler {
		return func(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
			_, err := w.Write([]byte(body))
			return err
		}
	}
	act := func(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
		server.SetAuditTarget(r, "the thing")
		f.acts.Add(1)
		_, err := w.Write([]byte("done"))
		return err
	}
	return []httpx.Route{
		{Pattern: "GET /things", Need: httpx.View, Handler: ok("things")},
		{Pattern: "POST /things", Need: httpx.Act, Audit: "thing.poke", Handler: act},
		{Pattern: "GET /hosts/{license}/thing", Need: httpx.View, Handler: ok("a host's thing")},
		{Pattern: "POST /hosts/{license}/thing", Need: httpx.Act, Audit: "thing.act", Handler: act},
		{Pattern: "GET /adminonly", Need: httpx.Admin, Handler: ok("admin things")},
		{Pattern: "GET /boom", Need: httpx.View, Handler: func(http.ResponseWriter, *http.Request, *auth.Principal) error {
			return errors.New("database password is hunter2")
		}},
	}
}

type fixture struct {
	p    *paneltest.Panel
	acts *atomic.Int32
}

func start(t *testing.T, o paneltest.Options) *fixture {
	t.Helper()
	f := &fixture{acts: &atomic.Int32{}}
	o.Features = func(paneltest.Deps) []httpx.Feature { return []httpx.Feature{things{f.acts}} }
	f.p = paneltest.Start(t, o)
	f.p.AddLicense(t, "lic-a")
	f.p.AddLicense(t, "lic-b")
	return f
}

func (f *fixture) client(t *testing.T, name string, role auth.Role, grants ...string) *paneltest.Client {
	t.Helper()
	return f.p.Client(t, name, f.p.AddUser(t, name, role, grants...))
}

// audit returns the audit rows of an action, newest first.
func (f *fixture) audit(t *testing.T, action string) []store.AuditEntry {
	t.Helper()
	rows, err := f.p.Store.Audit(context.Background(), store.AuditFilter{Action: action})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func do(t *testing.T, c *paneltest.Client, req *http.Request) int {
	t.Helper()
	resp := c.Do(req)
	resp.Body.Close()
	return resp.StatusCode
}

func TestServer_CSRF(t *testing.T) {
	f := start(t, paneltest.Options{})
	c := f.client(t, "root", auth.RoleAdmin)
	cases := []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"foreign origin", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"cross-site fetch metadata", map[string]string{"Origin": "", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"htmx from a foreign origin", map[string]string{"Origin": "http://evil.example", "HX-Request": "true"}, http.StatusForbidden},
		{"same origin", nil, http.StatusOK},
		{"htmx same origin", map[string]string{"HX-Request": "true", "Sec-Fetch-Site": "same-origin"}, http.StatusOK},
	}
	for _, k := range cases {
		t.Run(k.name, func(t *testing.T) {
			before := f.acts.Load()
			req := c.NewPost("/hosts/lic-a/thing", url.Values{"x": {"1"}})
			for h, v := range k.headers {
				if v == "" {
					req.Header[h] = nil // send none (Do adds Origin only when absent)
					continue
				}
				req.Header.Set(h, v)
			}
			if got := do(t, c, req); got != k.want {
				t.Fatalf("status %d, want %d", got, k.want)
			}
			ran := f.acts.Load() != before
			if ran != (k.want == http.StatusOK) {
				t.Fatalf("handler ran = %v with status %d", ran, k.want)
			}
		})
	}
	if rows := f.audit(t, "thing.act"); len(rows) != 2 {
		t.Fatalf("%d audit rows, want 2 (refused cross-origin requests never reach a handler)", len(rows))
	}
}

func TestServer_SecurityHeadersOnEveryResponse(t *testing.T) {
	f := start(t, paneltest.Options{})
	c := f.client(t, "root", auth.RoleAdmin)
	anon := f.p.AnonClient(t)
	evil := c.NewPost("/things", nil)
	evil.Header.Set("Origin", "http://evil.example")
	get := func(cl *paneltest.Client, path string) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, f.p.URL+path, nil)
		return r
	}
	reqs := map[string]struct {
		c   *paneltest.Client
		req *http.Request
	}{
		"login page":     {anon, get(anon, "/login")},
		"redirect":       {anon, get(anon, "/things")},
		"page":           {c, get(c, "/things")},
		"not found":      {c, get(c, "/nothing/here")},
		"static":         {anon, get(anon, "/static/panel.css")},
		"csrf refusal":   {c, evil},
		"handler error":  {c, get(c, "/boom")},
		"metrics":        {c, get(c, "/metrics")},
		"healthz":        {anon, get(anon, "/healthz")},
		"admin refusal":  {f.client(t, "viewer", auth.RoleViewer), get(c, "/adminonly")},
		"logout (POST)":  {anon, anon.NewPost("/logout", nil)},
		"login (POST)":   {anon, anon.NewPost("/login", url.Values{"name": {"x"}, "password": {"y"}})},
		"act on nothing": {c, c.NewPost("/hosts/lic-a/thing", nil)},
	}
	for name, r := range reqs {
		t.Run(name, func(t *testing.T) {
			resp := r.c.Do(r.req)
			resp.Body.Close()
			csp := resp.Header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
				t.Errorf("CSP allows inline or eval: %q", csp)
			}
			if resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("headers %v", resp.Header)
			}
		})
	}
}

func TestServer_ViewerCannotActAndIsAudited(t *testing.T) {
	f := start(t, paneltest.Options{})
	v := f.client(t, "vic", auth.RoleViewer, "lic-a")
	if status, body := v.Get("/hosts/lic-a/thing"); status != http.StatusOK {
		t.Fatalf("viewer GET of a granted host = %d %s", status, body)
	}
	for _, path := range []string{"/things", "/hosts/lic-a/thing"} {
		if status, body := v.PostForm(path, nil); status != http.StatusForbidden || !strings.Contains(body, "viewer") {
			t.Fatalf("viewer POST %s = %d %q", path, status, body)
		}
	}
	if f.acts.Load() != 0 {
		t.Fatal("a viewer's POST ran the handler")
	}
	rows := f.audit(t, "thing.act")
	if len(rows) != 1 || rows[0].Result != store.AuditDenied || rows[0].UserName != "vic" || rows[0].License != "lic-a" {
		t.Fatalf("audit rows %+v", rows)
	}
	if status, _ := v.Get("/adminonly"); status != http.StatusForbidden {
		t.Fatalf("viewer GET of an admin route = %d", status)
	}
}

func TestServer_LicenseScoping(t *testing.T) {
	f := start(t, paneltest.Options{})
	op := f.client(t, "otto", auth.RoleOperator, "lic-a")
	if status, _ := op.PostForm("/hosts/lic-a/thing", nil); status != http.StatusOK {
		t.Fatalf("operator POST on a granted license = %d", status)
	}
	for _, path := range []string{"/hosts/lic-b/thing", "/hosts/lic%2Db/thing", "/hosts/LIC-B/thing"} {
		if status, _ := op.Get(path); status != http.StatusForbidden {
			t.Errorf("GET %s = %d, want 403", path, status)
		}
		if status, _ := op.PostForm(path, nil); status != http.StatusForbidden {
			t.Errorf("POST %s = %d, want 403", path, status)
		}
	}
	// A dot-segment URL is cleaned by the router and redirected, never served.
	if status, _ := op.Get("/hosts/lic-a/../lic-b/thing"); status == http.StatusOK {
		t.Error("dot-segment URL served another license's host")
	}
	if n := f.acts.Load(); n != 1 {
		t.Fatalf("handler ran %d times, want 1", n)
	}
	denied := 0
	for _, r := range f.audit(t, "thing.act") {
		if r.Result == store.AuditDenied && r.License == "lic-b" && r.UserName == "otto" {
			denied++
		}
	}
	if denied != 2 { // lic%2Db decodes to lic-b; LIC-B is another (unknown) license
		t.Fatalf("%d denied rows for lic-b, want 2", denied)
	}
	admin := f.client(t, "root", auth.RoleAdmin)
	if status, _ := admin.PostForm("/hosts/lic-b/thing", nil); status != http.StatusOK {
		t.Fatalf("admin POST = %d", status)
	}
}

func TestServer_UnauthenticatedRedirectsToLogin(t *testing.T) {
	f := start(t, paneltest.Options{})
	anon := f.p.AnonClient(t)
	req, _ := http.NewRequest(http.MethodGet, f.p.URL+"/hosts/lic-a/thing?tab=x", nil)
	resp := anon.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login?next=%2Fhosts%2Flic-a%2Fthing%3Ftab%3Dx" {
		t.Fatalf("GET = %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	req, _ = http.NewRequest(http.MethodGet, f.p.URL+"/things", nil)
	req.Header.Set("HX-Request", "true")
	resp = anon.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("HX-Redirect"), "/login?next=") {
		t.Fatalf("htmx GET = %d HX-Redirect %q", resp.StatusCode, resp.Header.Get("HX-Redirect"))
	}
	if status, _ := anon.PostForm("/hosts/lic-a/thing", nil); status != http.StatusSeeOther {
		t.Fatalf("anonymous POST = %d", status)
	}
	rows := f.audit(t, "thing.act")
	if f.acts.Load() != 0 || len(rows) != 1 || rows[0].Result != store.AuditDenied || rows[0].Detail != "not logged in" {
		t.Fatalf("anonymous POST: ran %d, audit %+v", f.acts.Load(), rows)
	}
}

func TestServer_HandlerErrorsInWords(t *testing.T) {
	f := start(t, paneltest.Options{})
	c := f.client(t, "root", auth.RoleAdmin)
	status, body := c.Get("/boom")
	if status != http.StatusInternalServerError || strings.Contains(body, "hunter2") || !strings.Contains(body, "something went wrong") {
		t.Fatalf("GET /boom = %d\n%s", status, body)
	}
	status, body = c.Get("/no/such/page")
	if status != http.StatusNotFound || !strings.Contains(body, "There is no page at /no/such/page") && !strings.Contains(body, "there is no page at /no/such/page") {
		t.Fatalf("GET unknown = %d\n%s", status, body)
	}
	if !strings.Contains(body, `href="/audit"`) {
		t.Fatal("the 404 page of a logged-in operator has no navigation")
	}
}

// TestServer_DeniedReadsAreAudited: a refused GET (another license's host,
// an admin page) is audited as DeniedAction naming the user, the request
// and the reason, though the route has no audit action of its own; a
// flood of them writes at most the per-caller budget. Issue 17 point 1.
func TestServer_DeniedReadsAreAudited(t *testing.T) {
	f := start(t, paneltest.Options{})
	op := f.client(t, "otto", auth.RoleOperator, "lic-a")
	if status, _ := op.Get("/hosts/lic-a/thing"); status != http.StatusOK {
		t.Fatalf("granted GET = %d", status)
	}
	for _, path := range []string{"/hosts/lic-b/thing", "/adminonly"} {
		if status, _ := op.Get(path); status != http.StatusForbidden {
			t.Fatalf("GET %s = %d, want 403", path, status)
		}
	}
	rows := f.audit(t, server.DeniedAction)
	if len(rows) != 2 {
		t.Fatalf("%d denied rows, want 2: %+v", len(rows), rows)
	}
	admin, host := rows[0], rows[1] // newest first
	if host.UserName != "otto" || host.Result != store.AuditDenied || host.Target != "GET /hosts/lic-b/thing" ||
		host.License != "lic-b" || !strings.Contains(host.Detail, "no grant for license lic-b") {
		t.Errorf("host row %+v", host)
	}
	if admin.UserName != "otto" || admin.Target != "GET /adminonly" || !strings.Contains(admin.Detail, "only admins") {
		t.Errorf("admin row %+v", admin)
	}
	for range 100 {
		op.Get("/hosts/lic-b/thing")
	}
	if n := len(f.audit(t, server.DeniedAction)); n > 30 {
		t.Fatalf("100 more refused GETs wrote %d denied rows in all, want at most the budget of 30", n)
	}
	// A granted read and an anonymous one write nothing.
	f.p.AnonClient(t).Get("/hosts/lic-a/thing")
	if rows := f.audit(t, server.DeniedAction); rows[0].UserName != "otto" {
		t.Fatalf("anonymous read audited: %+v", rows[0])
	}
}

// TestServer_InputThatIsNotTextRefusedAtTheEdge: a query, form or path
// that is not UTF-8 text, or holds NUL, is a 400 in words before any
// handler runs, audited when the route is. Issue 17 point 6.
func TestServer_InputThatIsNotTextRefusedAtTheEdge(t *testing.T) {
	f := start(t, paneltest.Options{})
	op := f.client(t, "otto", auth.RoleOperator, "lic-a")
	for _, path := range []string{"/things?q=%FF%FE", "/things?q=a%00b", "/things?%FF=1", "/hosts/lic%FF/thing"} {
		if status, body := op.Get(path); status != http.StatusBadRequest || !strings.Contains(body, "not UTF-8 text or holds a NUL byte") {
			t.Errorf("GET %s = %d %q, want 400 in words", path, status, body)
		}
	}
	if status, body := op.PostForm("/hosts/lic-a/thing", url.Values{"note": {"a\x00b"}}); status != http.StatusBadRequest ||
		!strings.Contains(body, `the field "note" of the form`) {
		t.Errorf("POST with NUL = %d %q", status, body)
	}
	if f.acts.Load() != 0 {
		t.Fatal("a handler ran on bad input")
	}
	if rows := f.audit(t, "thing.act"); len(rows) != 1 || rows[0].Result != store.AuditDenied {
		t.Fatalf("audit %+v", rows)
	}
	if status, _ := op.Get("/things?q=" + url.QueryEscape("café")); status != http.StatusOK {
		t.Fatalf("text query = %d", status)
	}
}
