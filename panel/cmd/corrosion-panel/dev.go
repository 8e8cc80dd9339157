package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"github.com/corrosion/corrosion/internal/cli"
	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/panel/dev"
)

// devOptions reads dev's flags over its environment; help is
// flag.ErrHelp.
func devOptions(args []string, e env) (dev.Options, error) {
	o := dev.Options{Listen: dev.DefaultListen, NATSPort: dev.DefaultNATSPort, WorldPorts: dev.PortsDesign,
		DatabaseURL: e.getenv("DATABASE_URL"), PanelLog: slog.LevelWarn}
	var ports string
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	fs.SetOutput(e.stdout)
	fs.StringVar(&o.Listen, "listen", o.Listen, "the panel's HTTP address")
	fs.IntVar(&o.NATSPort, "nats-port", o.NATSPort, "the embedded NATS server's port on 127.0.0.1")
	fs.StringVar(&ports, "world-ports", string(o.WorldPorts), "design (world 1 on 8080, world 2 on 8081, …) or free (any free ports)")
	// A Func flag, as the other commands' --database-url: no default shown.
	fs.Func("database-url", flagval.SecretUsage("Postgres for the panel (the worlds use <database>_worlds) [DATABASE_URL]; empty: a throwaway one", "DATABASE_URL", "database-url-file"), flagval.String(&o.DatabaseURL))
	fs.Func("database-url-file", "file holding the Postgres URL", flagval.SecretFile(&o.DatabaseURL))
	fs.Func("log-level", "the panel's log level: debug, info, warn or error (default warn)", flagval.Level(&o.PanelLog))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("%w: unexpected argument %q", cli.ErrUsage, fs.Arg(0))
	}
	o.WorldPorts = dev.PortMode(ports)
	return o, o.Validate()
}

func (e env) dev(ctx context.Context, args []string) int {
	o, err := devOptions(args, e)
	if err != nil {
		return e.fail("dev", err)
	}
	o.Out = e.stdout
	o.Log = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: o.PanelLog}))
	if err := dev.Run(ctx, o); err != nil {
		return e.fail("dev", err)
	}
	return exitOK
}
