package app

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corrosion/corrosion/internal/rungroup"
	"github.com/corrosion/corrosion/panel/admin"
	"github.com/corrosion/corrosion/panel/agentc"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/console"
	"github.com/corrosion/corrosion/panel/files"
	"github.com/corrosion/corrosion/panel/fleetui"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/ingest"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/login"
	"github.com/corrosion/corrosion/panel/reach"
	"github.com/corrosion/corrosion/panel/reachui"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/social"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// sessionPruneEvery is how often expired sessions are deleted.
const sessionPruneEvery = 10 * time.Minute

// parts are what Serve has opened before the features are built.
type parts struct {
	store *store.Store         // closed by Serve, last
	nc    *nats.Conn           // drained by Serve after the features and ingest stopped
	reg   *prometheus.Registry // this replica's metrics (/metrics)
	log   *slog.Logger
}

// built is the wired panel: the server and what to stop after it.
type built struct {
	server  *server.Server // set once build succeeded
	closers []func()       // appended by build, run last-registered first by close
}

func (b *built) onClose(fn func()) { b.closers = append(b.closers, fn) }

func (b *built) close() {
	for _, fn := range slices.Backward(b.closers) {
		fn()
	}
}

// build wires ingest and every feature to the server. Ingest's group is
// registered first, so it stops (flushing its batch) after the features'
// group has stopped.
func build(ctx context.Context, cfg Config, p parts) (*built, error) {
	b := &built{}
	prober, err := reach.New(reach.Options{AllowPrivate: cfg.ProbePrivate, Logger: p.log.With("component", "reach")})
	if err != nil {
		return b, err
	}
	auto := reachui.NewAuto(p.store, prober, reachui.AutoOptions{Logger: p.log})
	ingest := rungroup.New(p.log)
	b.onClose(ingest.Stop)
	if err := startIngest(ingest, p, auto); err != nil {
		return b, err
	}
	feats := rungroup.New(p.log)
	b.onClose(feats.Stop)
	feats.Go("inbound probe after start", auto.Run)
	sessions := auth.New(p.store, auth.Options{BehindTLS: cfg.SecureCookies, Logger: p.log})
	feats.Go("session pruning", func(ctx context.Context) error { return sessions.Run(ctx, sessionPruneEvery) })
	features := []httpx.Feature{
		login.New(login.Deps{Sessions: sessions, Audit: p.store, Gatherer: p.reg, Registry: p.reg,
			Metrics: login.MetricsAccess{Token: cfg.MetricsToken},
			Health:  func(ctx context.Context) error { return p.store.Pool().Ping(ctx) }, Logger: p.log}),
	}
	more, err := buildFeatures(feats, p, sessions)
	more = append(more, reachui.New(reachui.Deps{Store: p.store, Prober: prober}))
	if err != nil {
		return b, err
	}
	features = append(features, more...)
	srv, err := server.New(server.Config{Listen: cfg.Listen, TrustedOrigins: cfg.TrustedOrigins, TrustedProxies: cfg.TrustedProxies}, server.Deps{
		Auth:     sessions,
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

// startIngest starts the fleet's ingest (a NATS queue group shared by
// every replica, batched writes); stopping g flushes its last batch.
// What a batch committed goes to every replica's live state hub, and its
// starts to this replica's probe after start.
func startIngest(g *rungroup.Group, p parts, auto *reachui.Auto) error {
	in, err := ingest.New(ingest.Config{}, p.store, p.nc, p.log, p.reg)
	if err != nil {
		return err
	}
	publish := livestate.PublishCommitted(p.nc, p.log)
	in.OnCommit(func(b *store.Batch, committed time.Time) {
		publish(b, committed)
		auto.Committed(b, committed)
	})
	g.Go("ingest", in.Run)
	return nil
}

// buildFeatures builds the pages, starting their background work (the
// live state hub, the social health collector) in g.
func buildFeatures(g *rungroup.Group, p parts, sessions *auth.Sessions) ([]httpx.Feature, error) {
	live, err := fleetui.NewLive(livestate.Config{}, p.nc, p.store, p.log, livestate.NewMetrics(p.reg))
	if err != nil {
		return nil, err
	}
	g.Go("live state hub", live.Run)
	collector := social.NewCollector(p.log)
	g.Go("social health collector", func(ctx context.Context) error { return collector.Run(ctx, p.nc) })
	head := func(ctx context.Context, pr *auth.Principal, license, instance string) (ui.InstanceHead, error) {
		return fleetui.Head(ctx, p.store, license, instance, pr)
	}
	cons := console.New(server.TabDeps{NATS: p.nc, Head: head, Logger: p.log})
	if err := cons.RegisterMetrics(p.reg); err != nil {
		return nil, err
	}
	return []httpx.Feature{
		fleetui.New(fleetui.Deps{Store: p.store, Agents: agentc.New(p.nc), Live: live, Worlds: collector, Logger: p.log}),
		cons,
		files.New(server.TabDeps{NATS: p.nc, Head: head, Logger: p.log}),
		social.New(social.Deps{Store: p.store, Collector: collector, Logger: p.log}),
		admin.New(admin.Deps{Store: p.store, Hasher: sessions.Hasher(), Logger: p.log}),
	}, nil
}
