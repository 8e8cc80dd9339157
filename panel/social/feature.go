// Package social is the panel's social health page: a per-replica
// collector of every ether cluster's health snapshots ({cluster}.health.
// {node} on NATS), and GET /social, which opens with a verdict per cluster
// and refreshes itself. Only panel packages import it.
package social

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// Instances lists the fleet's ether and world instances (panel/store).
type Instances interface {
	SocialInstances(ctx context.Context) ([]store.SocialInstance, error)
}

var _ Instances = (*store.Store)(nil)

// InstancesTTL is how long the node-to-instance mapping is reused before
// the store is read again: live refreshes read the collector, not Postgres.
const InstancesTTL = 10 * time.Second

// DeafText is shown while the panel's own NATS connection is down.
const DeafText = "This panel is not connected to NATS right now: no health snapshot can arrive, " +
	"so nodes only look silent. Check the panel's NATS connection before the ether nodes."

// Deps are what the feature needs.
type Deps struct {
	Store     Instances
	Collector *Collector
	Logger    *slog.Logger
	Now       func() time.Time // nil: time.Now
}

// Feature serves the social health page.
type Feature struct {
	deps Deps // immutable after New

	mu      sync.Mutex
	cached  []store.SocialInstance // guarded by mu
	cacheAt time.Time              // guarded by mu
}

// New returns the feature.
func New(d Deps) *Feature {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	return &Feature{deps: d}
}

// Routes is the feature's route table.
func (f *Feature) Routes() []httpx.Route {
	return []httpx.Route{
		{Pattern: "GET /social", Need: httpx.View, Handler: f.page},
		{Pattern: "GET /social/live", Need: httpx.View, Handler: f.live},
	}
}

func (f *Feature) page(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	v, err := f.view(r.Context(), p)
	if err != nil {
		return err
	}
	return server.Render(w, r, http.StatusOK, ui.SocialPage(server.PageFor(p, "Social health", ui.NavSocial), v))
}

func (f *Feature) live(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	v, err := f.view(r.Context(), p)
	if err != nil {
		return err
	}
	return server.Render(w, r, http.StatusOK, ui.SocialLive(v))
}

func (f *Feature) view(ctx context.Context, p *auth.Principal) (ui.SocialView, error) {
	insts, err := f.instances(ctx)
	if err != nil {
		return ui.SocialView{}, httpx.Wrap(http.StatusServiceUnavailable, "the panel cannot read the fleet right now; try again", err)
	}
	now := f.deps.Now()
	v := Build(f.deps.Collector.Nodes(now), insts, p, now)
	if !f.deps.Collector.Listening() {
		v.Deaf = DeafText
	}
	return v, nil
}

// instances is the store's mapping, read at most every InstancesTTL.
func (f *Feature) instances(ctx context.Context) ([]store.SocialInstance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if now := f.deps.Now(); f.cached == nil || now.Sub(f.cacheAt) > InstancesTTL {
		insts, err := f.deps.Store.SocialInstances(ctx)
		if err != nil {
			return nil, err
		}
		f.cached, f.cacheAt = insts, now
		if f.cached == nil {
			f.cached = []store.SocialInstance{}
		}
	}
	return f.cached, nil
}
