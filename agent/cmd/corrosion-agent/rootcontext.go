package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"

	"github.com/corrosion/corrosion/agent"
	"github.com/corrosion/corrosion/internal/cli"
)

// notifyContext is the root context of `run`: SIGINT and SIGTERM cancel
// it (cli.SignalContext; the games keep running), a host-shutdown signal
// (SIGUSR2, signal_unix.go) cancels it with cause agent.ErrHostShutdown.
// The first signal decides; later ones are ignored until stop is called.
func notifyContext(logger *slog.Logger) (context.Context, func()) {
	sigCtx, stopSignals := cli.SignalContext(context.Background())
	ctx, cancel := context.WithCancelCause(sigCtx)
	if len(hostShutdownSignals) == 0 { // Windows: the service's preshutdown has this role
		return ctx, func() { cancel(context.Canceled); stopSignals() }
	}
	host := make(chan os.Signal, 1)
	signal.Notify(host, hostShutdownSignals...)
	go func() {
		select {
		case sig := <-host:
			logger.Info("host shutdown: stopping every game, then exiting", "signal", sig.String())
			cancel(agent.ErrHostShutdown)
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		cancel(context.Canceled)
		signal.Stop(host)
		stopSignals()
	}
}
