// Package fleetui is the panel's fleet feature: the fleet page, the
// Servers page (every instance of the fleet), a host's page, an
// instance's overview tab, the power endpoint, and the live state streams (/live/fleet, /live/hosts/{license}) whose fragments its Model
// renders for panel/livestate. Pages are read from the store; the live
// streams update them from the agents' NATS events. Only panel packages
// import it.
package fleetui

import (
	"context"
	"log/slog"
	"time"

	"github.com/corrosion/corrosion/panel/agentc"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/store"
)

// Store is what the fleet pages read (panel/store implements it).
type Store interface {
	Hosts(ctx context.Context, f store.HostFilter) ([]store.Host, error)
	Host(ctx context.Context, license string) (store.Host, error)
	Instances(ctx context.Context, license string) ([]store.Instance, error)
	InstancesOf(ctx context.Context, licenses []string) ([]store.Instance, error)
	Instance(ctx context.Context, license, id string) (store.Instance, error)
	Timeline(ctx context.Context, license, id string, limit int) ([]store.Event, error)
	Samples(ctx context.Context, license string, since time.Time) ([]store.Sample, error)
	UnknownLicenses(ctx context.Context) ([]store.UnknownLicense, error)
}

var _ Store = (*store.Store)(nil)

// Agents sends power actions to agents (panel/agentc implements it).
type Agents interface {
	Instance(ctx context.Context, license, instance, fn string, args, reply any) error
}

var _ Agents = (*agentc.Client)(nil)

// Deps are the feature's parts.
type Deps struct {
	Store  Store
	Agents Agents
	// Live serves the live state streams; nil: the stream routes answer
	// 503 (pages still render, without live updates).
	// A stream ends with its operator's session or grant: the server
	// ends the request (panel/server's SessionRecheck).
	Live *Live
	// Worlds tells a world's browser client URL as the world reported it
	// (panel/social's collector); nil: no world client links.
	Worlds WorldURLs
	Logger *slog.Logger
}

// WorldURLs finds the public client URL a world instance reported; "":
// none reported.
type WorldURLs interface {
	PublicURL(license, instance string) string
}

// Feature serves the fleet routes.
type Feature struct {
	d   Deps // immutable after New
	log *slog.Logger
}

// New returns the feature.
func New(d Deps) *Feature {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	return &Feature{d: d, log: d.Logger.With("component", "fleetui")}
}

// Routes are the fleet's routes (panel.md's URL map).
func (f *Feature) Routes() []httpx.Route {
	return []httpx.Route{
		{Pattern: "GET /{$}", Need: httpx.View, Handler: f.fleet},
		{Pattern: "GET /servers", Need: httpx.View, Handler: f.servers},
		{Pattern: "GET /hosts/{license}", Need: httpx.View, Handler: f.host},
		{Pattern: "GET /hosts/{license}/instances/{instance}", Need: httpx.View, Handler: f.instance},
		{Pattern: "POST /hosts/{license}/instances/{instance}/power", Need: httpx.Act, Audit: "instance.power", Handler: f.power},
		{Pattern: "GET /live/fleet", Need: httpx.View, Handler: f.liveFleet},
		{Pattern: "GET /live/hosts/{license}", Need: httpx.View, Handler: f.liveHost},
	}
}

// Timeline and history bounds of the pages.
const (
	TimelineRows = 50              // newest state events on the overview
	ChartWindow  = 24 * time.Hour  // telemetry shown on a host page: the history ingest keeps (store.DefaultRetention)
	ChartPoints  = 240             // at most this many points per chart
	SparkSamples = 30              // points of a fleet row's sparkline
	powerTimeout = 5 * time.Second // the agent replies when the action is accepted or refused
)
