package login_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/login"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type clock struct {
	mu  sync.Mutex
	now time.Time // guarded by mu
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func loginRows(t *testing.T, p *paneltest.Panel) []store.AuditEntry {
	t.Helper()
	rows, err := p.Store.Audit(context.Background(), store.AuditFilter{Action: login.AuditAction})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestLogin_PageAndRedirects(t *testing.T) {
	p := paneltest.Start(t, paneltest.Options{})
	anon := p.AnonClient(t)
	status, body := anon.Get("/login?next=%2Fhosts%2Fx")
	if status != http.StatusOK || !strings.Contains(body, `name="next" value="/hosts/x"`) || !strings.Contains(body, "Sign in") {
		t.Fatalf("GET /login = %d\n%s", status, body)
	}
	pw := p.AddUser(t, "alice", auth.RoleOperator)
	c := p.AnonClient(t)
	req := c.NewPost("/login", url.Values{"name": {"alice"}, "password": {pw}, "next": {"/hosts/x?tab=1"}})
	resp := c.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/hosts/x?tab=1" {
		t.Fatalf("login = %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Logged in, the login page sends the operator on.
	req, _ = http.NewRequest(http.MethodGet, p.URL+"/login", nil)
	resp = c.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/servers" {
		t.Fatalf("logged-in GET /login = %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	rows := loginRows(t, p)
	if len(rows) != 1 || rows[0].Result != store.AuditOK || rows[0].UserName != "alice" || rows[0].UserID == 0 || rows[0].RemoteAddr != "127.0.0.1" {
		t.Fatalf("login audit %+v", rows)
	}
	if status, body := p.AnonClient(t).PostForm("/login", url.Values{"name": {"alice"}}); status != http.StatusBadRequest || !strings.Contains(body, "Enter your username and password.") {
		t.Fatalf("empty password = %d\n%s", status, body)
	}
}

// next goes only to local paths: an open redirect is a bug.
func TestLogin_NextNeverLeavesThePanel(t *testing.T) {
	p := paneltest.Start(t, paneltest.Options{})
	pw := p.AddUser(t, "alice", auth.RoleOperator)
	for next, want := range map[string]string{
		"/hosts/a":             "/hosts/a",
		"/":                    "/servers", // the bare panel address: the landing page
		"":                     "/servers",
		"//evil.example/x":     "/servers",
		"https://evil.example": "/servers",
		"/\\evil.example":      "/servers",
		"\\\\evil.example":     "/servers",
		"/%2F%2Fevil.example":  "/servers",
		"javascript:alert(1)":  "/servers",
		"/login?next=//evil":   "/servers",
		"hosts/a":              "/servers",
		" /hosts/a":            "/servers",
	} {
		c := p.AnonClient(t)
		resp := c.Do(c.NewPost("/login", url.Values{"name": {"alice"}, "password": {pw}, "next": {next}}))
		resp.Body.Close()
		if got := resp.Header.Get("Location"); got != want {
			t.Errorf("next %q: Location %q, want %q", next, got, want)
		}
	}
}

func TestLogin_ExpiryLogoutAndDisable(t *testing.T) {
	clk := &clock{now: time.Now()}
	p := paneltest.Start(t, paneltest.Options{Auth: auth.Options{Now: clk.Now}})
	pw := p.AddUser(t, "alice", auth.RoleAdmin)
	c := p.Client(t, "alice", pw)
	if status, _ := c.Get("/metrics"); status != http.StatusOK {
		t.Fatalf("logged in: %d", status)
	}
	clk.Add(12*time.Hour + time.Second)
	if status, _ := c.Get("/metrics"); status != http.StatusUnauthorized {
		t.Fatalf("after 12 h idle: %d, want the session gone", status)
	}

	c = p.Client(t, "alice", pw)
	old := c.HTTP().Jar.Cookies(mustURL(t, p.URL))
	status, _ := c.PostForm("/logout", nil)
	if status != http.StatusSeeOther {
		t.Fatalf("logout = %d", status)
	}
	if status, body := c.Get("/login?loggedout=1"); status != http.StatusOK || !strings.Contains(body, "You are logged out.") {
		t.Fatalf("after logout: %d\n%s", status, body)
	}
	// Replaying the old cookie does not bring the session back.
	replay := p.AnonClient(t)
	replay.HTTP().Jar.SetCookies(mustURL(t, p.URL), old)
	if status, _ := replay.Get("/metrics"); status != http.StatusUnauthorized {
		t.Fatalf("replayed cookie after logout: %d", status)
	}

	c = p.Client(t, "alice", pw)
	u, err := p.Store.UserByName(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Store.DisableUser(context.Background(), u.ID); err != nil {
		t.Fatal(err)
	}
	if status, _ := c.Get("/metrics"); status != http.StatusUnauthorized {
		t.Fatalf("disabled user's session: %d", status)
	}
	if status, body := p.AnonClient(t).PostForm("/login", url.Values{"name": {"alice"}, "password": {pw}}); status != http.StatusForbidden || !strings.Contains(body, "disabled") {
		t.Fatalf("disabled login = %d\n%s", status, body)
	}
}

func TestLogin_RateLimitedInWordsAndAudited(t *testing.T) {
	clk := &clock{now: time.Now()}
	p := paneltest.Start(t, paneltest.Options{Auth: auth.Options{Now: clk.Now}})
	pw := p.AddUser(t, "alice", auth.RoleOperator)
	anon := p.AnonClient(t)
	for i := range 4 {
		if status, body := anon.PostForm("/login", url.Values{"name": {"alice"}, "password": {"guess number one"}}); status != http.StatusUnauthorized || !strings.Contains(body, "Wrong username or password.") {
			t.Fatalf("guess %d = %d\n%s", i+1, status, body)
		}
	}
	status, body := anon.PostForm("/login", url.Values{"name": {"alice"}, "password": {"guess number five"}})
	if status != http.StatusTooManyRequests || !strings.Contains(body, "Too many failed logins, try again in 60 s.") {
		t.Fatalf("fifth guess = %d\n%s", status, body)
	}
	clk.Add(20 * time.Second)
	c := p.AnonClient(t)
	resp := c.Do(c.NewPost("/login", url.Values{"name": {"alice"}, "password": {pw}}))
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "40" {
		t.Fatalf("right password while locked = %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	clk.Add(41 * time.Second)
	p.Client(t, "alice", pw)
	var failed, limited, ok int
	for _, r := range loginRows(t, p) {
		switch {
		case r.Result == store.AuditOK && r.UserName == "alice":
			ok++
		case r.Result == store.AuditDenied && strings.Contains(r.Detail, "too many failed logins"):
			limited++
		case r.Result == store.AuditDenied && r.Target == "alice" && r.UserID == 0:
			failed++
		}
	}
	if failed != 4 || limited != 2 || ok != 1 {
		t.Fatalf("audit: %d failed, %d rate-limited, %d ok; want 4, 2, 1", failed, limited, ok)
	}
}

func TestLogin_MetricsAccess(t *testing.T) {
	p := paneltest.Start(t, paneltest.Options{Metrics: login.MetricsAccess{Token: "scrape-secret"}})
	admin := p.Client(t, "root", p.AddUser(t, "root", auth.RoleAdmin))
	admin.Get("/healthz")
	status, body := admin.Get("/metrics")
	if status != http.StatusOK || !strings.Contains(body, "corrosion_panel_http_request_seconds") {
		t.Fatalf("admin GET /metrics = %d\n%.500s", status, body)
	}
	if !strings.Contains(body, "corrosion_panel_password_hashes_in_flight 0") || !strings.Contains(body, "corrosion_panel_password_hash_busy_total 0") {
		t.Errorf("metrics lack the hasher's series:\n%s", grepLines(body, "password_hash"))
	}
	if !strings.Contains(body, `corrosion_panel_logins_total{result="ok"} 1`) {
		t.Errorf("metrics do not count the admin's login:\n%s", grepLines(body, "logins_total"))
	}
	viewer := p.Client(t, "vic", p.AddUser(t, "vic", auth.RoleViewer))
	for name, c := range map[string]*paneltest.Client{"anonymous": p.AnonClient(t), "viewer": viewer} {
		if status, _ := c.Get("/metrics"); status != http.StatusUnauthorized {
			t.Errorf("%s GET /metrics = %d", name, status)
		}
	}
	for tok, want := range map[string]int{"scrape-secret": http.StatusOK, "scrape-secreT": http.StatusUnauthorized, "": http.StatusUnauthorized} {
		req, _ := http.NewRequest(http.MethodGet, p.URL+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("bearer %q: %d, want %d", tok, resp.StatusCode, want)
		}
	}
	open := paneltest.Start(t, paneltest.Options{Metrics: login.MetricsAccess{Public: true}})
	if status, _ := open.AnonClient(t).Get("/metrics"); status != http.StatusOK {
		t.Fatalf("public metrics: %d", status)
	}
}

func TestLogin_Healthz(t *testing.T) {
	p := paneltest.Start(t, paneltest.Options{})
	if status, body := p.AnonClient(t).Get("/healthz"); status != http.StatusOK || body != "ok\n" {
		t.Fatalf("GET /healthz = %d %q", status, body)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestLogin_FormThatIsNotTextIsAFailedLogin: a name that is not UTF-8 or
// holds NUL answers 400 in words, is audited, and counts toward the
// lockout like a wrong password (it answered 500, unaudited and not
// rate-limited). Issue 17 point 6.
func TestLogin_FormThatIsNotTextIsAFailedLogin(t *testing.T) {
	p := paneltest.Start(t, paneltest.Options{})
	p.AddUser(t, "admin", auth.RoleAdmin)
	c := p.AnonClient(t)
	for i, name := range []string{"admin\xff", "ad\x00min", "admin\xff", "admin\xff"} {
		status, body := c.PostForm("/login", url.Values{"name": {name}, "password": {"whatever it is"}})
		if status != http.StatusBadRequest || !strings.Contains(body, "not UTF-8 text or holds a NUL byte") {
			t.Fatalf("attempt %d (%q) = %d, want 400 in words:\n%s", i+1, name, status, grepLines(body, "error"))
		}
	}
	// The fifth failure from the address locks it, as a fifth wrong password does.
	if status, _ := c.PostForm("/login", url.Values{"name": {"admin\xff"}, "password": {"x"}}); status != http.StatusTooManyRequests {
		t.Fatalf("fifth bad form = %d, want 429", status)
	}
	rows := loginRows(t, p)
	if len(rows) != 5 || rows[0].Result != store.AuditDenied || rows[0].Target != "admin\uFFFD" || rows[1].Target != "admin\uFFFD" || rows[3].Target != "admin" {
		t.Fatalf("audit rows %+v", rows)
	}
	if status, _ := c.PostForm("/login", url.Values{"name": {"admin"}, "password": {"well-formed"}}); status != http.StatusTooManyRequests {
		t.Fatalf("a well-formed attempt from the locked address = %d, want 429", status)
	}
}
