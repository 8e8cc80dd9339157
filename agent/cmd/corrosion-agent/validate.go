package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/internal/cli"
)

// loadConfig parses the flags of run and validate and loads the config
// they name; a failure has been reported and returns its exit code.
func (c streams) loadConfig(name string, args []string) (*config.Config, string, int) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	path := fs.String("config", "/etc/corrosion/agent.toml", "config file (TOML)")
	if err := fs.Parse(args); err != nil {
		return nil, *path, cli.FlagExit(err)
	}
	cfg, err := config.Load(*path)
	if err != nil {
		fmt.Fprintf(c.stderr, "corrosion-agent: invalid config %s:\n%v\n", *path, err)
		return nil, *path, cli.ExitFail
	}
	return cfg, *path, cli.ExitOK
}

// validate checks a config file and exits.
func (c streams) validate(_ context.Context, args []string) int {
	cfg, path, code := c.loadConfig("validate", args)
	if cfg == nil {
		return code
	}
	fmt.Fprintf(c.stdout, "%s: ok (%d instances)\n", path, len(cfg.Instances))
	if err := cfg.Agent.RootRefusal(os.Geteuid()); err != nil {
		fmt.Fprintf(c.stderr, "warning: run as root, this agent would not start game servers: %v\n", err)
	}
	return cli.ExitOK
}
