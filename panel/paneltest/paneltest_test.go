package paneltest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// hello is a small feature: who am I, and an agent ping through agentc.
type hello struct{ d paneltest.Deps }

func (h hello) Routes() []httpx.Route {
	return []httpx.Route{
		{Pattern: "GET /hello", Need: httpx.View, Handler: func(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
			_, err := fmt.Fprintf(w, "hello %s (%s)", p.Name, p.Role)
			return err
		}},
		{Pattern: "GET /hosts/{license}/ping", Need: httpx.View, Handler: func(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
			var rep map[string]any
			if err := h.d.Agents.Host(r.Context(), r.PathValue("license"), "ping", nil, &rep); err != nil {
				return httpx.Wrap(http.StatusBadGateway, err.Error(), err)
			}
			_, err := fmt.Fprintf(w, "pong %v", rep["version"])
			return err
		}},
	}
}

func helloPanel(t *testing.T, started *atomic.Int32) *paneltest.Panel {
	return paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		if started != nil {
			d.Go(func(ctx context.Context) { started.Add(1); <-ctx.Done() })
		}
		return []httpx.Feature{hello{d}}
	}})
}

func TestPanel_LoginRestartKeepsSession(t *testing.T) {
	var lives atomic.Int32
	p := helloPanel(t, &lives)
	pw := p.AddUser(t, "alice", auth.RoleOperator)
	c := p.Client(t, "alice", pw)
	if status, body := c.Get("/hello"); status != http.StatusOK || body != "hello alice (operator)" {
		t.Fatalf("GET /hello = %d %q", status, body)
	}
	if status, _ := p.AnonClient(t).Get("/hello"); status != http.StatusSeeOther {
		t.Fatalf("anonymous GET /hello = %d, want a redirect to the login", status)
	}
	p.Restart(t)
	// Each build's d.Go goroutine counts itself when it runs, which may be
	// after Restart returns.
	poll.Until(t, 5*time.Second, func() error {
		if n := lives.Load(); n != 2 {
			return fmt.Errorf("features built %d times, want 2 (start and restart)", n)
		}
		return nil
	})
	if status, body := c.Get("/hello"); status != http.StatusOK {
		t.Fatalf("after restart GET /hello = %d %q: the session did not survive", status, body)
	}
	if status, body := c.Get("/healthz"); status != http.StatusOK || body != "ok\n" {
		t.Fatalf("GET /healthz = %d %q", status, body)
	}
}

func TestPanel_ReplicaSharesSessions(t *testing.T) {
	p := helloPanel(t, nil)
	r := p.Replica(t)
	if r.URL == p.URL || r.DatabaseURL != p.DatabaseURL || r.NATSURL != p.NATSURL {
		t.Fatalf("replica %s db %s nats %s; panel %s db %s nats %s", r.URL, r.DatabaseURL, r.NATSURL, p.URL, p.DatabaseURL, p.NATSURL)
	}
	pw := p.AddUser(t, "bob", auth.RoleViewer)
	c := p.Client(t, "bob", pw)
	req, _ := http.NewRequest(http.MethodGet, r.URL+"/hello", nil)
	resp, err := c.HTTP().Do(req) // the jar sends the cookie to the same host on another port
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("replica GET /hello with the first panel's session = %d", resp.StatusCode)
	}
}

func TestPanel_BadLoginFails(t *testing.T) {
	p := helloPanel(t, nil)
	p.AddUser(t, "carol", auth.RoleAdmin)
	status, body := p.AnonClient(t).PostForm("/login", url.Values{"name": {"carol"}, "password": {"not her password"}})
	if status != http.StatusUnauthorized || !strings.Contains(body, "Wrong username or password") {
		t.Fatalf("wrong password: %d\n%s", status, body)
	}
}

func TestStartAgent_HeartbeatsPingAndBeacon(t *testing.T) {
	p := helloPanel(t, nil)
	p.AddLicense(t, "lic-a")
	pw := p.AddUser(t, "dave", auth.RoleOperator, "lic-a")
	hbs := make(chan wire.Heartbeat, 16)
	sub, err := p.NC.Subscribe(wire.HeartbeatSubject("lic-a"), func(m *nats.Msg) {
		var hb wire.Heartbeat
		if json.Unmarshal(m.Data, &hb) == nil {
			select {
			case hbs <- hb:
			default:
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	offline, err := p.NC.SubscribeSync(wire.GoingOfflineSubject("lic-a"))
	if err != nil {
		t.Fatal(err)
	}
	a := paneltest.StartAgent(t, p.NATSURL, "lic-a",
		paneltest.AgentInstance{ID: "game1", Autostart: true, Args: []string{"-stdout-lines", "2"}})
	c := p.Client(t, "dave", pw)
	if status, body := c.Get("/hosts/lic-a/ping"); status != http.StatusOK || !strings.HasPrefix(body, "pong ") {
		t.Fatalf("ping through the panel = %d %q", status, body)
	}
	poll.True(t, 10*time.Second, "a heartbeat with game1 running", func() bool {
		select {
		case hb := <-hbs:
			for _, in := range hb.Instances {
				if in.ID == "game1" && in.State == "running" {
					return true
				}
			}
		default:
		}
		return false
	})
	a.Stop()
	if _, err := offline.NextMsg(5 * time.Second); err != nil {
		t.Fatalf("no going_offline beacon after Stop: %v", err)
	}
}
