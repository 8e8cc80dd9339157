// Package app is `corrosion-panel serve`: its Config (flags and
// environment, validated with named errors) and Run, which wires the
// store, NATS, ingest, every feature and the HTTP server, and tears them
// down in order. Only panel packages import it.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corrosion/corrosion/panel/store"
)

// drainBudget bounds the NATS drain at shutdown.
const drainBudget = 5 * time.Second

// Run serves the panel on cfg.Listen until ctx ends. It refuses an
// unmigrated database (the error names `corrosion-panel migrate`); NATS
// that is not up yet is retried forever while the panel serves.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Listen, err)
	}
	return Serve(ctx, cfg, ln, log)
}

// Serve is Run on a listener the caller opened (cfg.Listen is not used);
// it closes ln.
//
// Teardown, in this order (the defers below run in reverse): the listener
// stops and open requests finish (server.Serve returns), then the
// features stop their live subscriptions, then ingest flushes what it has
// batched, then the NATS connection drains, then the store closes, so
// nothing still running writes to a closed part.
func Serve(ctx context.Context, cfg Config, ln net.Listener, log *slog.Logger) error {
	defer ln.Close()
	if log == nil {
		log = slog.Default()
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close() // last
	nc, err := connectNATS(ctx, cfg, log.With("component", "nats"))
	if err != nil {
		return err
	}
	defer drainNATS(nc, log)
	reg := prometheus.NewRegistry()
	p, err := build(ctx, cfg, parts{store: st, nc: nc, reg: reg, log: log})
	defer p.close() // features, then ingest
	if err != nil {
		return err
	}
	log.Info("corrosion-panel serving", "listen", ln.Addr().String())
	if err := p.server.Serve(ctx, ln); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// drainNATS drains the connection within drainBudget, then closes it.
// A connection that is not up has nothing to drain: it is closed at once.
func drainNATS(nc *nats.Conn, log *slog.Logger) {
	if !nc.IsConnected() {
		nc.Close()
		return
	}
	done := make(chan struct{})
	nc.SetClosedHandler(func(*nats.Conn) { close(done) })
	if err := nc.Drain(); err != nil {
		nc.Close()
		return
	}
	select {
	case <-done:
	case <-time.After(drainBudget):
		log.Warn("nats drain did not finish in time; closing")
		nc.Close()
	}
}
