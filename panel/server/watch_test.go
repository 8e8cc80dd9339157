package server_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/server"
)

// waiter is a feature with one long request, as a live stream is: it
// answers at once and then holds the request until its context ends,
// telling ended why.
type waiter struct{ ended chan error }

func (f waiter) Routes() []httpx.Route {
	return []httpx.Route{{Pattern: "GET /hosts/{license}/wait", Need: httpx.View,
		Handler: func(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
			w.WriteHeader(http.StatusOK)
			_ = http.NewResponseController(w).Flush()
			<-r.Context().Done()
			f.ended <- context.Cause(r.Context())
			return nil
		}}}
}

// A logout ends every request of that session on this replica at once (no
// recheck to wait for), and no other session's.
func TestWatch_LogoutEndsTheSessionsRequestsAtOnce(t *testing.T) {
	f := waiter{ended: make(chan error, 2)}
	p := paneltest.Start(t, paneltest.Options{Features: func(paneltest.Deps) []httpx.Feature { return []httpx.Feature{f} }})
	p.AddLicense(t, "lic-a")
	pw := p.AddUser(t, "olga", auth.RoleOperator, "lic-a")
	leaving, staying := p.Client(t, "olga", pw), p.Client(t, "olga", pw)
	for _, c := range []*paneltest.Client{leaving, staying} {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/hosts/lic-a/wait", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp := c.Do(req)
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("wait: %d", resp.StatusCode)
		}
	}
	start := time.Now()
	if status, _ := leaving.PostForm("/logout", url.Values{}); status != http.StatusSeeOther && status != http.StatusOK {
		t.Fatalf("logout: %d", status)
	}
	select {
	case err := <-f.ended:
		if err != server.ErrSessionEnded {
			t.Fatalf("the request ended with %v, want ErrSessionEnded", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("the request ended %v after the logout, want at once", d)
		}
	case <-time.After(server.DefaultSessionRecheck):
		t.Fatal("the logged-out session's request still runs")
	}
	select {
	case err := <-f.ended:
		t.Fatalf("the other session's request ended too: %v", err)
	case <-time.After(server.DefaultSessionRecheck + time.Second): // past a recheck
	}
}
