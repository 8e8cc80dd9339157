package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/app"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// replica is one app.Serve running on its own port.
type replica struct {
	url  string
	done chan error
	stop context.CancelFunc
}

func startReplica(t *testing.T, cfg app.Config) *replica {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Listen = ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{url: "http://" + ln.Addr().String(), done: make(chan error, 1), stop: cancel}
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	go func() { r.done <- app.Serve(ctx, cfg, ln, log) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-r.done:
			if err != nil {
				t.Errorf("replica %s: %v", r.url, err)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("replica %s did not stop within 20 s", r.url)
		}
	})
	poll.Until(t, 10*time.Second, func() error {
		resp, err := http.Get(r.url + "/healthz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return errors.New(resp.Status)
		}
		return nil
	})
	return r
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// migrated returns a migrated database with an admin "root" (password pw).
func migrated(t *testing.T) (dsn, pw string) {
	t.Helper()
	ctx := context.Background()
	dsn = pgtest.NewDatabase(t)
	if _, err := store.Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pw = "a long enough password"
	hash, err := auth.HashPassword(pw, auth.DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateUser(ctx, "root", hash, string(auth.RoleAdmin)); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateLicense(ctx, "demo", "Demo"); err != nil {
		t.Fatal(err)
	}
	return dsn, pw
}

func TestServeRefusesUnmigrated(t *testing.T) {
	ns := natstest.Start(t)
	cfg := app.DefaultConfig()
	cfg.DatabaseURL, cfg.NATSURL, cfg.Listen = pgtest.NewDatabase(t), ns.URL(), "127.0.0.1:0"
	err := app.Run(context.Background(), cfg, nil)
	if !errors.Is(err, store.ErrNotMigrated) || !strings.Contains(err.Error(), "corrosion-panel migrate") {
		t.Fatalf("Run on an unmigrated database: %v; want ErrNotMigrated naming `corrosion-panel migrate`", err)
	}
}

func TestConfigValidateNamesFieldAndDoesNotMutate(t *testing.T) {
	c := app.DefaultConfig()
	c.DatabaseURL = "postgres://u:secret@127.0.0.1/db"
	c.NATSURL = " nats://127.0.0.1:4222 , "
	before := c
	if err := c.Validate(); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
	if c.NATSURL != before.NATSURL || c.Listen != before.Listen {
		t.Errorf("Validate changed the config")
	}
	c.Listen = "127.0.0.1:99999"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "--listen") {
		t.Errorf("bad port: %v", err)
	}
	c = before
	c.DatabaseURL = "postgres://u:secret@127.0.0.1:notaport/db"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "DATABASE_URL") || strings.Contains(err.Error(), "secret") {
		t.Errorf("bad database URL: %v (must name DATABASE_URL and hide the password)", err)
	}
}

// login posts the login form to base and returns a client holding the
// session cookie (valid for every replica on 127.0.0.1).
func login(t *testing.T, base, name, pw string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodPost, base+"/login", strings.NewReader(url.Values{"name": {name}, "password": {pw}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login on %s: %s", base, resp.Status)
	}
	return hc
}

func get(t *testing.T, hc *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := hc.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestTwoReplicasSideBySide(t *testing.T) {
	ns := natstest.Start(t)
	dsn, pw := migrated(t)
	cfg := app.DefaultConfig()
	cfg.DatabaseURL, cfg.NATSURL = dsn, ns.URL()
	a, b := startReplica(t, cfg), startReplica(t, cfg)
	hc := login(t, a.url, "root", pw)
	// The cookie is per host (127.0.0.1), not per port: the jar sends it
	// to the other replica too, as a browser behind a load balancer would.
	for _, r := range []*replica{a, b} {
		code, body := get(t, hc, r.url+"/social")
		if code != http.StatusOK || !strings.Contains(body, "root") {
			t.Errorf("%s/social with the session from %s: %d", r.url, a.url, code)
		}
	}
	heartbeatsWrittenOnce(t, ns, hc, a, b)
	anon := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if code, _ := get(t, anon, b.url+"/social"); code != http.StatusSeeOther {
		t.Errorf("no session: %d, want a redirect to /login", code)
	}
}

// heartbeatsWrittenOnce publishes heartbeats of a known license and checks
// that the two replicas' ingest (one NATS queue group) took each exactly
// once between them, and that both fleet pages show the host.
func heartbeatsWrittenOnce(t *testing.T, ns *natstest.Server, hc *http.Client, a, b *replica) {
	t.Helper()
	nc := ns.Connect(t)
	hb := func() []byte {
		data, _ := json.Marshal(wire.Heartbeat{Schema: 2, Timestamp: time.Now().UTC(),
			Agent: wire.AgentInfo{Version: "test", OS: "linux", Arch: "amd64"}, Host: wire.HostInfo{Hostname: "replica-test-host"}})
		return data
	}
	// The first heartbeat that lands shows both replicas are ingesting.
	poll.Until(t, 20*time.Second, func() error {
		if err := nc.Publish(wire.HeartbeatSubject("demo"), hb()); err != nil {
			return err
		}
		if code, body := get(t, hc, b.url+"/"); code != http.StatusOK || !strings.Contains(body, "replica-test-host") {
			return fmt.Errorf("fleet page on the second replica: %d, host not listed yet", code)
		}
		return nil
	})
	before := ingested(t, hc, a) + ingested(t, hc, b)
	const n = 20
	for range n {
		if err := nc.Publish(wire.HeartbeatSubject("demo"), hb()); err != nil {
			t.Fatal(err)
		}
	}
	poll.Until(t, 20*time.Second, func() error {
		if got := ingested(t, hc, a) + ingested(t, hc, b) - before; got != n {
			return fmt.Errorf("replicas ingested %d of %d heartbeats", got, n)
		}
		return nil
	})
	if code, body := get(t, hc, a.url+"/"); code != http.StatusOK || !strings.Contains(body, "replica-test-host") {
		t.Errorf("fleet page on the first replica: %d, host missing", code)
	}
	// Every feature's series reach /metrics (they were once left unregistered).
	_, metrics := get(t, hc, a.url+"/metrics")
	for _, series := range []string{"corrosion_panel_console_streams", "corrosion_panel_logins_total",
		"corrosion_panel_http_request_seconds", "corrosion_panel_ingest_lag_seconds"} {
		if !strings.Contains(metrics, series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	time.Sleep(300 * time.Millisecond) // a duplicate delivery would show up after a flush (250 ms)
	if got := ingested(t, hc, a) + ingested(t, hc, b) - before; got != n {
		t.Errorf("replicas ingested %d heartbeats, want each of %d once", got, n)
	}
}

// ingested is the replica's count of ingested agent messages (/metrics).
func ingested(t *testing.T, hc *http.Client, r *replica) int {
	t.Helper()
	code, body := get(t, hc, r.url+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("%s/metrics: %d", r.url, code)
	}
	total := 0
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, "corrosion_panel_ingest_messages_total{"); ok {
			_, v, _ := strings.Cut(rest, "} ")
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metrics line %q: %v", line, err)
			}
			total += int(f)
		}
	}
	return total
}

func TestLoadConfigFlagsWinOverEnvironment(t *testing.T) {
	env := map[string]string{"DATABASE_URL": "postgres://a@127.0.0.1/env", "CORROSION_PANEL_LISTEN": "127.0.0.1:1111",
		"NATS_URL": "nats://10.0.0.1:4222", "CORROSION_PANEL_SECURE_COOKIES": "true", "CORROSION_PANEL_TRUSTED_ORIGINS": "https://a.example, https://b.example"}
	c, err := app.LoadConfig("serve", []string{"--listen", "127.0.0.1:2222", "--database-url", "postgres://a@127.0.0.1/flag"},
		func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:2222" || c.DatabaseURL != "postgres://a@127.0.0.1/flag" || c.NATSURL != "nats://10.0.0.1:4222" ||
		!c.SecureCookies || len(c.TrustedOrigins) != 2 || c.TrustedOrigins[1] != "https://b.example" {
		t.Errorf("config %+v: flags must win, the environment fill the rest", c)
	}
	if _, err := app.LoadConfig("serve", nil, func(k string) string {
		if k == "CORROSION_PANEL_SECURE_COOKIES" {
			return "maybe"
		}
		return env[k]
	}, io.Discard); err == nil || !strings.Contains(err.Error(), "CORROSION_PANEL_SECURE_COOKIES") {
		t.Errorf("bad boolean in the environment: %v", err)
	}
	c, err = app.LoadConfig("serve", []string{"--trusted-proxies", "10.0.0.0/8,192.0.2.7"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil || len(c.TrustedProxies) != 2 {
		t.Errorf("trusted proxies: %v %v", c.TrustedProxies, err)
	}
	if _, err := app.LoadConfig("serve", []string{"--trusted-proxies", "balancer.local"}, func(k string) string { return env[k] }, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "--trusted-proxies") || !strings.Contains(err.Error(), "balancer.local") {
		t.Errorf("a host name as trusted proxy: %v", err)
	}
}
