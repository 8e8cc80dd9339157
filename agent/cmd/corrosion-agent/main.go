// Command corrosion-agent supervises the game servers of one host and
// talks to the Corrosion backend over NATS.
//
//	corrosion-agent run --config FILE
//	corrosion-agent validate --config FILE
//	corrosion-agent version
//	corrosion-agent install [--root DIR] [--dry-run] [--config PATH] [--binary PATH] [--print-unit]
//	corrosion-agent uninstall [--root DIR] [--dry-run]
//	corrosion-agent service-status
//	corrosion-agent shutdown-hook   (the systemd unit's ExecStop)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/corrosion/corrosion/agent"
	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/internal/buildinfo"
)

const usage = `usage:
  corrosion-agent run --config FILE        supervise the instances and serve NATS
  corrosion-agent validate --config FILE   check a config file and exit
  corrosion-agent version                  print version, commit and build time
  corrosion-agent install [--dry-run] [--config FILE] [--binary FILE] [--root DIR]
                                           install the agent as a service (idempotent)
  corrosion-agent install --print-unit     print the systemd unit, change nothing
  corrosion-agent uninstall [--dry-run]    stop and remove the service; keep config and data
  corrosion-agent service-status           is the service installed, enabled, running?
  corrosion-agent shutdown-hook            used by the systemd unit (ExecStop): on a host
                                           shutdown, stop the games gracefully first
`

func main() {
	if code, isService := runService(os.Args[1:]); isService { // Windows service (service_windows.go)
		os.Exit(code)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "version", "--version", "-version", "-v":
		fmt.Fprintf(stdout, "corrosion-agent %s\n", buildinfo.Get())
		return 0
	case "run", "validate":
	case "install", "uninstall", "service-status":
		return runInstaller(args, stdout, stderr)
	case "shutdown-hook":
		return shutdownHook(stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "corrosion-agent: unknown command %q\n%s", args[0], usage)
		return 2
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", "/etc/corrosion/agent.toml", "config file (TOML)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	cfg, err := config.Load(*path)
	if err != nil {
		fmt.Fprintf(stderr, "corrosion-agent: invalid config %s:\n%v\n", *path, err)
		return 1
	}
	if args[0] == "validate" {
		fmt.Fprintf(stdout, "%s: ok (%d instances)\n", *path, len(cfg.Instances))
		if err := cfg.Agent.RootRefusal(os.Geteuid()); err != nil {
			fmt.Fprintf(stderr, "warning: run as root, this agent would not start game servers: %v\n", err)
		}
		return 0
	}
	return serve(cfg, stderr)
}

func serve(cfg *config.Config, stderr io.Writer) int {
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.Agent.SlogLevel()}))
	ctx, stop := notifyContext(logger)
	defer stop()
	a, err := agent.New(cfg, logger)
	if err != nil {
		logger.Error("start", "err", err)
		return 1
	}
	logger.Info("corrosion-agent starting", "version", buildinfo.Get().String(),
		"license", cfg.Agent.LicenseID, "instances", len(cfg.Instances))
	if err := a.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		logger.Error("run", "err", err)
		return 1
	}
	if errors.Is(context.Cause(ctx), agent.ErrHostShutdown) {
		logger.Info("corrosion-agent stopped for the host shutdown")
		return 0
	}
	logger.Info("corrosion-agent stopped; game processes keep running")
	return 0
}

// notifyContext is the root context: SIGINT and SIGTERM cancel it (the
// games keep running), a host-shutdown signal (SIGUSR2, signal_unix.go)
// cancels it with cause agent.ErrHostShutdown. The first signal decides; later ones are ignored
// until stop is called.
func notifyContext(logger *slog.Logger) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, append([]os.Signal{os.Interrupt, syscall.SIGTERM}, hostShutdownSignals...)...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			if slices.Contains(hostShutdownSignals, sig) {
				logger.Info("host shutdown: stopping every game, then exiting", "signal", sig.String())
				cancel(agent.ErrHostShutdown)
				return
			}
			cancel(context.Canceled)
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		cancel(context.Canceled)
		signal.Stop(sigs)
	}
}
