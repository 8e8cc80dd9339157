// Package ether is the social sidecar of one game world: it serves the
// world link (package link), keeps the sessions of the world's players
// (package session), joins the other ether nodes over NATS (package
// cluster) and persists to Postgres (package store). It must not import
// panel or web.
package ether

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/ether/cluster"
	"github.com/corrosion/corrosion/ether/health"
	"github.com/corrosion/corrosion/ether/link"
	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/ether/session"
	"github.com/corrosion/corrosion/ether/store"
	"github.com/corrosion/corrosion/internal/rungroup"
	"github.com/corrosion/corrosion/internal/scrape"
)

// Node is one running ether sidecar.
type Node struct {
	cfg     Config // immutable after New
	log     *slog.Logger
	started time.Time

	store    *store.Store
	member   *cluster.Member
	sessions *session.Manager
	link     *link.Server
	metrics  *scrape.Listener // nil when --metrics-listen is empty

	health  healthRates
	world   atomic.Pointer[health.World] // the last WorldInfo a world sent; nil: none yet
	crashed atomic.Bool                  // tests: Crash was called
}

// New checks the configuration and the database schema (refusing an
// unmigrated database with a message naming `ether migrate`), listens for
// the world and connects to NATS. Call Run next. log should carry the node
// id already (NewLogger's does); the node's own lines do not repeat it.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Node, error) {
	cfg = cfg.Resolved()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, log: log, started: time.Now()}
	var err error
	n.store, err = store.New(ctx, store.Config{DSN: cfg.DB.URL()}, log.With("component", "store"))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", cfg.DB, err)
	}
	if err := n.build(); err != nil {
		n.store.Close()
		return nil, err
	}
	return n, nil
}

func (n *Node) build() error {
	var err error
	n.link, err = link.New(link.Config{Addr: n.cfg.ListenAddr(), Token: []byte(n.cfg.LinkToken)}, n, n.log.With("component", "link"))
	if err != nil {
		return err
	}
	n.member, err = cluster.New(cluster.Config{
		URLs: n.cfg.ClusterHosts, Name: n.cfg.ClusterName, NodeID: n.cfg.NodeID,
		LeaseTTL: n.cfg.LeaseTTL, Heartbeat: n.cfg.Heartbeat, NodeTimeout: n.cfg.NodeTimeout,
		LockReplicas: n.cfg.LockReplicas,
	}, n.log.With("component", "cluster"))
	if err != nil {
		n.link.Close()
		return err
	}
	n.sessions = session.New(session.Config{NodeID: n.cfg.NodeID, LinkGrace: n.cfg.LinkGrace, LeaseTTL: n.cfg.LeaseTTL},
		n.link, n.store, n.member, n.log.With("component", "session"))
	if err := n.member.Start(n.sessions); err != nil {
		n.link.Close()
		return err
	}
	if n.cfg.MetricsListen != "" {
		if n.metrics, err = scrape.Listen(n.cfg.MetricsListen, n.httpHandler(), n.log.With("component", "metrics")); err != nil {
			n.link.Close()
			n.member.Close()
			return fmt.Errorf("metrics listen (RS_METRICS_LISTEN): %w", err)
		}
	}
	return nil
}

// WorldAddr is the address of the world link.
func (n *Node) WorldAddr() net.Addr { return n.link.Addr() }

// MetricsAddr is the address of /metrics, nil when off.
func (n *Node) MetricsAddr() net.Addr {
	if n.metrics == nil {
		return nil
	}
	return n.metrics.Addr()
}

// Run serves until ctx ends. Teardown order: the world link (no more
// frames), the metrics listener, the sessions (queued work finishes), the
// cluster (goodbye to the peers, then drain), the database (queued writes
// flushed within a few seconds), the pool.
func (n *Node) Run(ctx context.Context) error {
	storeStop := rungroup.Run(n.log, "store", n.store.Run)
	clusterStop := rungroup.Run(n.log, "cluster", n.member.Run)
	healthStop := rungroup.Run(n.log, "health loop", n.healthLoop)
	sessStop := rungroup.Run(n.log, "sessions", n.sessions.Run)
	recoverStop := rungroup.Run(n.log, "recovery watch", n.watchRecovery)
	linkErr := make(chan error, 1)
	linkCtx, stopLink := context.WithCancel(context.Background())
	go func() { linkErr <- n.link.Run(linkCtx) }()
	if n.metrics != nil {
		n.metrics.Serve()
	}
	n.log.Info("ether ready", "world_link", n.link.Addr().String(), "link_token", n.cfg.LinkToken != "",
		"cluster", n.cfg.ClusterName, "nats", n.cfg.ClusterHostsRedacted(), "metrics", n.cfg.MetricsListen)

	var err error
	select {
	case <-ctx.Done():
		stopLink()
		err = <-linkErr
	case err = <-linkErr:
		stopLink()
	}
	if n.metrics != nil {
		n.metrics.Stop()
	}
	recoverStop()
	sessStop()
	healthStop()
	clusterStop()
	storeStop()
	n.store.Close()
	n.log.Info("ether stopped")
	return err
}

// watchRecovery reloads every session after a database outage.
func (n *Node) watchRecovery(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-n.store.Recovered():
			n.log.Info("database back: reloading and re-sending every session's lists", "sessions", n.sessions.Count())
			n.sessions.Reload()
		}
	}
}

// HandleFrame, WorldUp and WorldDown make the Node the link's handler. A
// WorldInfo is the health snapshot's business, not the sessions'.
func (n *Node) HandleFrame(m proto.Message) {
	if wi, ok := m.(*proto.WorldInfo); ok {
		n.setWorld(wi)
		return
	}
	n.sessions.Handle(m)
}

// setWorld keeps who the world says it is for the health snapshot; it
// stays after the world disconnects (the snapshot's world_link says so).
func (n *Node) setWorld(wi *proto.WorldInfo) {
	w := &health.World{License: string(wi.License), Instance: string(wi.Instance), PublicURL: string(wi.PublicURL)}
	if err := w.Check(); err != nil {
		n.log.Warn("ignoring the world's WorldInfo", "err", err)
		return
	}
	n.world.Store(w)
}

// WorldUp is called when a world connects.
func (n *Node) WorldUp() {}

// WorldDown is called when the world link is lost.
func (n *Node) WorldDown() { n.sessions.WorldDown() }

var _ link.Handler = (*Node)(nil)
