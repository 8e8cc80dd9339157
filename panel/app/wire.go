package app

import (
	"context"
	"log/slog"
	"net/http"
	"slices"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
)

// parts are what Serve has opened before the features are built.
type parts struct {
	store *store.Store
	nc    *nats.Conn
	reg   *prometheus.Registry
	log   *slog.Logger
}

// built is the wired panel: the server and what to stop after it.
type built struct {
	server  *server.Server
	closers []func() // run in reverse order of registration by close
}

// onClose registers fn to run at close, before everything registered
// earlier.
func (b *built) onClose(fn func()) { b.closers = append(b.closers, fn) }

func (b *built) close() {
	for _, fn := range slices.Backward(b.closers) {
		fn()
	}
}

// build wires ingest and every feature to the server. Ingest is
// registered first, so it is flushed after the features have stopped.
func build(ctx context.Context, cfg Config, p parts) (*built, error) {
	b := &built{}
	var features []httpx.Feature
	srv, err := server.New(server.Config{Listen: cfg.Listen, TrustedOrigins: cfg.TrustedOrigins}, server.Deps{
		Auth:     noSessions{},
		Audit:    p.store,
		Features: features,
		Registry: p.reg,
		Logger:   p.log,
	})
	if err != nil {
		return b, err
	}
	b.server = srv
	return b, nil
}

// noSessions is the authenticator until the login feature is wired:
// nobody is logged in.
type noSessions struct{}

func (noSessions) Principal(*http.Request) (*auth.Principal, error) { return nil, nil }
