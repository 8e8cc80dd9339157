package server

import (
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/panel/agentc"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/web/ui"
)

// TabDeps are what a feature serving a tab of the instance page that talks
// to the instance's agent (console, files) is built from.
type TabDeps struct {
	NATS   *nats.Conn   // the agent's requests (and the console's subscriptions) go over it
	Head   HeadFunc     // nil: a header with the ids only
	Logger *slog.Logger // nil: slog.Default()
}

// Tab is what every such feature holds, built by TabDeps.Tab: the
// connection, the agent client on it, the instance header and its logger.
type Tab struct {
	NC    *nats.Conn     // immutable after Tab
	Agent *agentc.Client // immutable after Tab
	Head  HeadFunc       // immutable after Tab
	Log   *slog.Logger   // immutable after Tab; with the feature's "component"
}

// Tab builds the part every instance tab holds for the feature named
// component.
func (d TabDeps) Tab(component string) Tab {
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	return Tab{NC: d.NATS, Agent: agentc.New(d.NATS), Head: d.Head, Log: log.With("component", component)}
}

// AgentError is the error of a request to an agent as the operator reads
// it: an httpx.Error with agentc.Describe's status and words, the agent's
// error kept as its cause (errors.As still finds its code).
func AgentError(err error) error {
	status, msg := agentc.Describe(err)
	return httpx.Wrap(status, msg, err)
}

// InstancePage is the frame of a page of one instance (its overview and
// every tab) for p: under the fleet in the navigation.
func InstancePage(p *auth.Principal, title string) ui.Page { return PageFor(p, title, ui.NavFleet) }
