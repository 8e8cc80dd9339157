package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/installer"
)

// runInstaller runs install, uninstall or service-status (args[0]).
func runInstaller(args []string, stdout, stderr io.Writer) int {
	cmd := args[0]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := installer.Options{Out: stdout, ValidateConfig: validateConfig}
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
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "corrosion-agent %s: unexpected argument %q\n", cmd, fs.Arg(0))
		return 2
	}
	if printUnit {
		fmt.Fprint(stdout, installer.SystemdUnit(installer.UnitOptions{Binary: o.Binary, ConfigPath: o.ConfigPath}))
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
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
		fmt.Fprint(stdout, report)
	}
	if err != nil {
		fmt.Fprintf(stderr, "corrosion-agent %s: %v\n", cmd, err)
		if errors.Is(err, installer.ErrUnsupported) {
			return 2
		}
		return 1
	}
	return 0
}

// validateConfig is the installer's config check: the agent's own loader.
func validateConfig(data []byte, lookup func(string) (string, bool)) error {
	_, err := config.Parse(data, lookup)
	return err
}
