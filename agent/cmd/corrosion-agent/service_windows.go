package main

// The process the Windows service control manager starts
// (`corrosion-agent.exe run --config <path>`, as the installer registers
// it): the agent under svc.Run, logging to the Event Log. Not run-tested
// here (compile-checked with GOOS=windows go vet; the log handler is
// tested on Linux, service_log_test.go); docs/windows.md says what is
// verified.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/eventlog"

	"github.com/corrosion/corrosion/agent"
	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/installer"
	"github.com/corrosion/corrosion/internal/buildinfo"
)

// Stop reporting: the service manager waits stopWaitHint between two
// progress reports before it gives up on the service; the agent reports
// every stopTick while it stops, for at most stopBudget.
const (
	stopWaitHint = 20 * time.Second
	stopTick     = 5 * time.Second
	stopBudget   = 2 * time.Minute
)

// Exit codes the service reports to the service manager (service-specific
// codes; any of them counts as a failure and triggers the recovery
// actions).
const (
	exitFailed    uint32 = 1 // the agent could not start or ended with an error
	exitBadConfig uint32 = 2 // the config does not load
)

// runService runs the agent as the Windows service when the service
// manager started this process for `run`; otherwise it reports false and
// main goes on as on any platform. It asks the service manager itself
// (StartServiceCtrlDispatcher fails at once with
// ERROR_FAILED_SERVICE_CONTROLLER_CONNECT in a process it did not start)
// rather than guessing from the parent process as svc.IsWindowsService
// does (that guess fails under wine, whose services run outside session 0).
func runService(args []string) (int, bool) {
	if len(args) == 0 || args[0] != "run" {
		return 0, false
	}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	path := fs.String("config", installer.DefaultConfigPath(), "")
	if fs.Parse(args[1:]) != nil || fs.NArg() > 0 {
		return 0, false // main reports the bad command line
	}
	h := &agentService{path: *path}
	err := svc.Run(installer.WindowsServiceName, h)
	switch {
	case errors.Is(err, windows.ERROR_FAILED_SERVICE_CONTROLLER_CONNECT):
		return 0, false // not started by the service manager: an ordinary run
	case err != nil:
		if elog, eerr := eventlog.Open(installer.WindowsServiceName); eerr == nil {
			_ = elog.Error(eventIDError, "corrosion-agent service: "+err.Error())
			_ = elog.Close()
		}
		return 1, true
	}
	return 0, true
}

// agentService is the svc.Handler running the agent.
type agentService struct {
	path string // immutable; the config file
}

// Execute loads the config, runs the agent until the service manager
// asks it to stop (or the agent ends by itself) and reports each state.
// Stopping the agent leaves its game servers running; a preshutdown
// notification (the host is going down) stops them gracefully first.
func (h *agentService) Execute(_ []string, reqs <-chan svc.ChangeRequest, changes chan<- svc.Status) (bool, uint32) {
	changes <- svc.Status{State: svc.StartPending}
	elog, err := eventlog.Open(installer.WindowsServiceName)
	if err != nil {
		return true, exitFailed // no Event Log source: nowhere to say why
	}
	defer elog.Close()
	cfg, err := loadServiceConfig(h.path)
	if err != nil {
		_ = elog.Error(eventIDError, "corrosion-agent: "+err.Error())
		return true, exitBadConfig
	}
	logger := slog.New(newEventHandler(elog, cfg.Agent.SlogLevel()))
	a, err := agent.New(cfg, logger)
	if err != nil {
		logger.Error("start", "err", err)
		return true, exitFailed
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	logger.Info("corrosion-agent service starting", "version", buildinfo.Get().String(),
		"license", cfg.Agent.LicenseID, "instances", len(cfg.Instances))
	changes <- svc.Status{State: svc.Running, Accepts: svc.AcceptStop | svc.AcceptShutdown | svc.AcceptPreShutdown}
	for {
		select {
		case err := <-done:
			return ranOut(logger, err)
		case c := <-reqs:
			switch c.Cmd {
			case svc.Interrogate:
				changes <- c.CurrentStatus
			case svc.Stop, svc.Shutdown:
				cancel(context.Canceled)
				return stopAgent(logger, done, changes, "corrosion-agent stopped; game processes keep running")
			case svc.PreShutdown:
				// The host is going down: stop every game gracefully first
				// (the installer raises the preshutdown timeout to cover it).
				logger.Info("host shutdown: stopping every game, then exiting")
				cancel(agent.ErrHostShutdown)
				return stopAgent(logger, done, changes, "corrosion-agent stopped for the host shutdown")
			}
		}
	}
}

// loadServiceConfig sets the variables of agent.env in this process's
// environment (as systemd's EnvironmentFile does on Linux: they are the
// agent's, and a game with inherit_env sees them) and loads the config.
func loadServiceConfig(path string) (*config.Config, error) {
	envFile := installer.WindowsEnvFile()
	env, err := installer.ReadEnvFile(envFile)
	if err != nil {
		return nil, err
	}
	for k, v := range env {
		if err := os.Setenv(k, v); err != nil {
			return nil, fmt.Errorf("%s: set %s: %w", envFile, k, err)
		}
	}
	cfg, err := config.Load(path)
	if err != nil {
		return nil, fmt.Errorf("invalid config %s:\n%w", path, err)
	}
	return cfg, nil
}

// ranOut reports an agent that ended without being asked to.
func ranOut(logger *slog.Logger, err error) (bool, uint32) {
	if err != nil && !errors.Is(err, context.Canceled) {
		logger.Error("run", "err", err)
		return true, exitFailed
	}
	logger.Warn("the agent ended by itself")
	return true, exitFailed
}

// stopAgent waits for the cancelled agent, reporting progress to the
// service manager, for at most stopBudget.
func stopAgent(logger *slog.Logger, done <-chan error, changes chan<- svc.Status, stopped string) (bool, uint32) {
	st := svc.Status{State: svc.StopPending, WaitHint: uint32(stopWaitHint / time.Millisecond)}
	changes <- st
	tick := time.NewTicker(stopTick)
	defer tick.Stop()
	budget := time.After(stopBudget)
	for {
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				logger.Error("run", "err", err)
			}
			logger.Info(stopped)
			return false, 0
		case <-tick.C:
			st.CheckPoint++
			changes <- st
		case <-budget:
			logger.Error("the agent did not stop within the budget; exiting anyway", "budget", stopBudget)
			return true, exitFailed
		}
	}
}
