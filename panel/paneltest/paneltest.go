// Package paneltest starts a real panel for tests: a migrated PostgreSQL
// database (internal/pgtest), an embedded NATS server (internal/natstest),
// panel/auth's sessions, the store as auditor, and panel/server with the
// features a test passes, serving on a free 127.0.0.1 port. It creates
// operators and licenses, gives logged-in HTTP clients and browser tabs,
// restarts the server part, and runs the real agent binary with fake game
// instances (StartAgent). Only tests import it (internal/deptest).
package paneltest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/panel/agentc"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/login"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
)

// Deps are what a test's features get: the parts of one server life (a
// Restart builds new ones, as a restarted process would).
type Deps struct {
	// Ctx ends when this server life stops (Restart or test cleanup).
	Ctx      context.Context
	Store    *store.Store // this life's own pool
	NC       *nats.Conn   // this life's own connection
	Agents   *agentc.Client
	Sessions *auth.Sessions
	Logger   *slog.Logger
	Registry *prometheus.Registry
	// Go runs a background part (an ingest, a hub) for this life; Restart
	// and cleanup cancel Ctx and wait for it to return.
	Go func(fn func(ctx context.Context))
}

// Options shape a test panel; the zero value is a panel with only the
// login feature.
type Options struct {
	// Features are the test's features, built for each server life. The
	// login feature (login, logout, /metrics, /healthz) is always mounted.
	Features func(Deps) []httpx.Feature
	// DatabaseURL shares a database with another panel (a second replica);
	// default: a fresh migrated pgtest database.
	DatabaseURL string
	// NATS shares a NATS server; default: a fresh embedded one.
	NATS *natstest.Server
	// Auth configures sessions. Its zero Hasher.Params are cheap argon2id
	// costs (m=64 KiB, t=1) so tests do not spend seconds hashing; set
	// them to test real costs.
	Auth           auth.Options
	TrustedOrigins []string
	TrustedProxies []string // server.Config.TrustedProxies
	Metrics        login.MetricsAccess
}

// TestParams are the cheap argon2id costs test panels hash with.
var TestParams = auth.Params{Memory: 64, Time: 1, Threads: 1}

// Panel is a running test panel.
type Panel struct {
	URL         string // http://127.0.0.1:port
	Addr        string // 127.0.0.1:port
	DatabaseURL string
	NATSURL     string
	NATS        *natstest.Server
	Store       *store.Store // the test's own handle on the database
	NC          *nats.Conn   // the test's own connection

	t    testing.TB   // immutable after Start
	opts Options      // immutable after Start
	log  *slog.Logger // immutable after Start

	mu   sync.Mutex
	life *life // guarded by mu; the running server part
}

// life is one run of the server part.
// Its fields are immutable after startLife; stopLife tears it down.
type life struct {
	cancel   context.CancelFunc   // ends Deps.Ctx and Serve
	served   chan error           // Serve's result
	wg       sync.WaitGroup       // Deps.Go parts
	store    *store.Store         // closed last
	nc       *nats.Conn           //
	sessions *auth.Sessions       //
	registry *prometheus.Registry //
}

// Start runs a panel for the test; everything stops at cleanup.
func Start(t testing.TB, o Options) *Panel {
	t.Helper()
	if o.Auth.Hasher.Params == (auth.Params{}) {
		o.Auth.Hasher.Params = TestParams
	}
	p := &Panel{t: t, opts: o, log: TestLogger(t), DatabaseURL: o.DatabaseURL, NATS: o.NATS}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if p.DatabaseURL == "" {
		p.DatabaseURL = pgtest.NewDatabase(t)
		if _, err := store.Migrate(ctx, p.DatabaseURL); err != nil {
			t.Fatalf("paneltest: migrate: %v", err)
		}
	}
	if p.NATS == nil {
		p.NATS = natstest.Start(t)
	}
	p.NATSURL = p.NATS.URL()
	st, err := store.Open(ctx, p.DatabaseURL)
	if err != nil {
		t.Fatalf("paneltest: open store: %v", err)
	}
	t.Cleanup(st.Close)
	p.Store = st
	p.NC = p.NATS.Connect(t, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("paneltest: listen: %v", err)
	}
	p.Addr = ln.Addr().String()
	p.URL = "http://" + p.Addr
	p.startLife(ln)
	t.Cleanup(p.stopLife)
	return p
}

// Replica starts a second panel on the same database and NATS server, as
// a second `corrosion-panel serve` behind a load balancer would run.
func (p *Panel) Replica(t testing.TB) *Panel {
	t.Helper()
	o := p.opts
	o.DatabaseURL, o.NATS = p.DatabaseURL, p.NATS
	return Start(t, o)
}

// Restart stops the server part (its HTTP server, store pool, NATS
// connection and every Deps.Go part) and starts it again on the same port,
// database and NATS server: what a panel restart looks like from outside.
func (p *Panel) Restart(t testing.TB) {
	t.Helper()
	p.stopLife()
	var ln net.Listener
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for ln, err = net.Listen("tcp", p.Addr); err != nil && time.Now().Before(deadline); ln, err = net.Listen("tcp", p.Addr) {
		time.Sleep(20 * time.Millisecond) // the old listener's port is released asynchronously
	}
	if err != nil {
		t.Fatalf("paneltest: listen again on %s: %v", p.Addr, err)
	}
	p.startLife(ln)
}

func (p *Panel) startLife(ln net.Listener) {
	t := p.t
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &life{cancel: cancel, served: make(chan error, 1), registry: prometheus.NewRegistry()}
	var err error
	if l.store, err = store.Open(ctx, p.DatabaseURL); err != nil {
		cancel()
		t.Fatalf("paneltest: open store: %v", err)
	}
	if l.nc, err = nats.Connect(p.NATSURL, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond)); err != nil {
		cancel()
		t.Fatalf("paneltest: connect NATS: %v", err)
	}
	ao := p.opts.Auth
	ao.Logger = p.log
	l.sessions = auth.New(l.store, ao)
	d := Deps{Ctx: ctx, Store: l.store, NC: l.nc, Agents: agentc.New(l.nc), Sessions: l.sessions,
		Logger: p.log, Registry: l.registry,
		Go: func(fn func(context.Context)) {
			l.wg.Add(1)
			go func() { defer l.wg.Done(); fn(ctx) }()
		}}
	feats := []httpx.Feature{login.New(login.Deps{Sessions: l.sessions, Audit: l.store, Gatherer: l.registry, Registry: l.registry,
		Metrics: p.opts.Metrics, Health: func(ctx context.Context) error { return l.store.Pool().Ping(ctx) }, Logger: p.log})}
	if p.opts.Features != nil {
		feats = append(feats, p.opts.Features(d)...)
	}
	srv, err := server.New(server.Config{Listen: p.Addr, TrustedOrigins: p.opts.TrustedOrigins, TrustedProxies: p.opts.TrustedProxies},
		server.Deps{Auth: l.sessions, Audit: l.store, Features: feats, Registry: l.registry, Logger: p.log})
	if err != nil {
		cancel()
		t.Fatalf("paneltest: server: %v", err)
	}
	go func() { l.served <- srv.Serve(ctx, ln) }()
	p.mu.Lock()
	p.life = l
	p.mu.Unlock()
}

func (p *Panel) stopLife() {
	p.mu.Lock()
	l := p.life
	p.life = nil
	p.mu.Unlock()
	if l == nil {
		return
	}
	l.cancel()
	if err := <-l.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		p.t.Errorf("paneltest: serve: %v", err)
	}
	l.wg.Wait()
	l.nc.Close()
	l.store.Close()
}

// Registry is the running server's Prometheus registry.
func (p *Panel) Registry() *prometheus.Registry {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.life.registry
}

// Sessions is the running server's sessions (its rate limiter included).
func (p *Panel) Sessions() *auth.Sessions {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.life.sessions
}

// AddLicense creates a license (a host's id).
func (p *Panel) AddLicense(t testing.TB, id string) {
	t.Helper()
	if err := p.Store.CreateLicense(context.Background(), id, ""); err != nil {
		t.Fatalf("paneltest: add license %s: %v", id, err)
	}
}

// AddUser creates an operator with a random password, granted the
// licenses, and returns the password.
func (p *Panel) AddUser(t testing.TB, name string, role auth.Role, grants ...string) string {
	t.Helper()
	ctx := context.Background()
	b := make([]byte, 15)
	_, _ = rand.Read(b)
	password := base64.RawURLEncoding.EncodeToString(b)
	hash, err := auth.HashPassword(password, p.opts.Auth.Hasher.Params)
	if err != nil {
		t.Fatal(err)
	}
	u, err := p.Store.CreateUser(ctx, name, hash, string(role))
	if err != nil {
		t.Fatalf("paneltest: add user %s: %v", name, err)
	}
	if len(grants) > 0 {
		if err := p.Store.SetGrants(ctx, u.ID, grants); err != nil {
			t.Fatalf("paneltest: grant %v to %s: %v", grants, name, err)
		}
	}
	return password
}
