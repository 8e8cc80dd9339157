package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/installer"
	"github.com/corrosion/corrosion/internal/cli"
)

// installCmd is the command install, uninstall or service-status (cmd).
func (c streams) installCmd(cmd string) cli.Run {
	return func(ctx context.Context, args []string) int { return c.runInstaller(ctx, cmd, args) }
}

func (c streams) runInstaller(ctx context.Context, cmd string, args []string) int {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	o := installer.Options{Out: c.stdout, ValidateConfig: validateConfig}
	fs.StringVar(&o.Root, "root", "", "install under this directory instead of / (tests); starts nothing")
	fs.StringVar(&o.ConfigPath, "config", installer.DefaultConfigPath(), "the config file the service reads")
	var printUnit bool
	if cmd != "service-status" {
		fs.BoolVar(&o.DryRun, "dry-run", false, "print every step, change nothing")
	}
	if cmd == "install" {
		fs.StringVar(&o.Binary, "binary", "", "the agent binary to install (default: this one)")
		fs.BoolVar(&printUnit, "print-unit", false, "print the systemd unit and exit (changes nothing)")
	}
	if err := fs.Parse(args); err != nil {
		return cli.FlagExit(err)
	}
	if fs.NArg() > 0 {
		return cli.Exit(c.stderr, "corrosion-agent "+cmd, cli.BadUsage(fmt.Errorf("unexpected argument %q", fs.Arg(0))))
	}
	if printUnit {
		fmt.Fprint(c.stdout, installer.SystemdUnit(installer.UnitOptions{Binary: o.Binary, ConfigPath: o.ConfigPath}))
		return cli.ExitOK
	}
	ctx, stop := cli.SignalContext(ctx)
	defer stop()
	var err error
	switch cmd {
	case "install":
		err = installer.Install(ctx, o)
	case "uninstall":
		err = installer.Uninstall(ctx, o)
	default:
		var report string
		report, err = installer.Status(ctx, o)
		fmt.Fprint(c.stdout, report)
	}
	if errors.Is(err, installer.ErrUnsupported) {
		err = cli.BadUsage(err)
	}
	return cli.Exit(c.stderr, "corrosion-agent "+cmd, err)
}

// validateConfig is the installer's config check: the agent's own loader.
func validateConfig(data []byte, lookup func(string) (string, bool)) error {
	_, err := config.Parse(data, lookup)
	return err
}
