// Package console is the instance page's live console and RCON tabs: the
// console page with its backlog (the agent's logs func) and live lines
// over SSE from a per-replica hub that subscribes to an instance's console
// subject only while a browser watches it, a line sent to the game's
// stdin, and RCON commands with their output. Only panel packages import
// it.
package console

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
)

// Feature serves the console and RCON tabs.
type Feature struct {
	server.Tab      // immutable after New
	hub        *Hub // immutable after New
}

var _ httpx.Feature = (*Feature)(nil)

// New returns the feature with its own hub on the connection.
func New(d server.TabDeps) *Feature {
	return &Feature{Tab: d.Tab("console"), hub: NewHub(d.NATS, d.Logger)}
}

// RegisterMetrics exposes the console's figures on reg: open streams,
// consoles subscribed on NATS, lines dropped for slow browsers.
func (f *Feature) RegisterMetrics(reg prometheus.Registerer) error {
	if err := registerMetrics(reg, f.hub); err != nil {
		return fmt.Errorf("console metrics: %w", err)
	}
	return nil
}

// Hub is the feature's console fan-out (for metrics and tests).
func (f *Feature) Hub() *Hub { return f.hub }

const base = "/hosts/{license}/instances/{instance}"

// Routes implements httpx.Feature.
func (f *Feature) Routes() []httpx.Route {
	return []httpx.Route{
		{Pattern: "GET " + base + "/console", Need: httpx.View, Handler: f.page},
		{Pattern: "GET " + base + "/console/stream", Need: httpx.View, Handler: f.stream},
		{Pattern: "POST " + base + "/console/send", Need: httpx.Act, Audit: "instance.send", Handler: f.send},
		{Pattern: "GET " + base + "/rcon", Need: httpx.View, Handler: f.rconPage},
		{Pattern: "POST " + base + "/rcon", Need: httpx.Act, Audit: "instance.rcon", Handler: f.rcon},
	}
}
