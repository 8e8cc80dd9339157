package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
)

// loginFrom posts a wrong password for name as if forwarded for client.
func loginFrom(t *testing.T, c *paneltest.Client, name, client string) int {
	t.Helper()
	req := c.NewPost("/login", url.Values{"name": {name}, "password": {"wrong password"}})
	req.Header.Set("X-Forwarded-For", "198.51.100.77, "+client) // the leftmost entry is the client's own claim
	return do(t, c, req)
}

// Behind a trusted load balancer each client has its own address in the
// audit log and its own failed-login budget.
func TestServer_TrustedProxyNamesTheClient(t *testing.T) {
	f := start(t, paneltest.Options{TrustedProxies: []string{"127.0.0.0/8"}})
	c := f.p.AnonClient(t)
	for i := range 5 {
		loginFrom(t, c, fmt.Sprint("guess", i), "203.0.113.9")
	}
	if got := loginFrom(t, c, "another", "203.0.113.9"); got != http.StatusTooManyRequests {
		t.Fatalf("sixth guess from one client = %d, want 429", got)
	}
	if got := loginFrom(t, c, "another", "203.0.113.10"); got != http.StatusUnauthorized {
		t.Fatalf("another client behind the same balancer = %d, want 401 (not locked out)", got)
	}
	rows := f.audit(t, "login")
	if len(rows) == 0 || rows[0].RemoteAddr != "203.0.113.10" {
		t.Fatalf("audit remote address %+v", rows)
	}
}

// Without trusted proxies X-Forwarded-For is ignored: a client cannot
// pick its own address to dodge the rate limit or forge the audit log.
func TestServer_ForwardedForIgnoredByDefault(t *testing.T) {
	f := start(t, paneltest.Options{})
	c := f.p.AnonClient(t)
	for i := range 5 {
		loginFrom(t, c, fmt.Sprint("guess", i), fmt.Sprint("203.0.113.", i))
	}
	if got := loginFrom(t, c, "another", "203.0.113.99"); got != http.StatusTooManyRequests {
		t.Fatalf("a forged X-Forwarded-For dodged the limit: %d", got)
	}
	for _, r := range f.audit(t, "login") {
		if r.RemoteAddr != "127.0.0.1" || r.Result != store.AuditDenied {
			t.Fatalf("audit row %+v", r)
		}
	}
}

func TestServer_New_RejectsBadTrustedProxy(t *testing.T) {
	f := start(t, paneltest.Options{})
	_, err := server.New(server.Config{TrustedProxies: []string{"10.0.0.0/8", "balancer.local"}},
		server.Deps{Auth: f.p.Sessions(), Audit: f.p.Store})
	if err == nil || !strings.Contains(err.Error(), `"balancer.local"`) {
		t.Fatalf("New = %v, want an error naming the bad entry", err)
	}
}
