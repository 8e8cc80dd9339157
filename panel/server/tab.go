package server

import (
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/panel/agentc"
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
