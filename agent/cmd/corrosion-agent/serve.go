package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/corrosion/corrosion/agent"
	"github.com/corrosion/corrosion/internal/buildinfo"
	"github.com/corrosion/corrosion/internal/cli"
)

// serve is `run`: it supervises the instances and serves NATS until a
// signal.
func (c streams) serve(_ context.Context, args []string) int {
	cfg, _, code := c.loadConfig("run", args)
	if cfg == nil {
		return code
	}
	logger := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: cfg.Agent.SlogLevel()}))
	ctx, stop := notifyContext(logger)
	defer stop()
	a, err := agent.New(cfg, logger)
	if err != nil {
		logger.Error("start", "err", err)
		return cli.ExitFail
	}
	logger.Info("corrosion-agent starting", "version", buildinfo.Get().String(),
		"license", cfg.Agent.LicenseID, "instances", len(cfg.Instances))
	if err := a.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		logger.Error("run", "err", err)
		return cli.ExitFail
	}
	if errors.Is(context.Cause(ctx), agent.ErrHostShutdown) {
		logger.Info("corrosion-agent stopped for the host shutdown")
		return cli.ExitOK
	}
	logger.Info("corrosion-agent stopped; game processes keep running")
	return cli.ExitOK
}
