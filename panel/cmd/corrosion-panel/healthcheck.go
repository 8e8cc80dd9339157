package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/corrosion/corrosion/internal/cli"
	"github.com/corrosion/corrosion/internal/healthprobe"
	"github.com/corrosion/corrosion/panel/app"
)

// listenEnv is serve's listen address variable; the health check reads it
// too, so a container that sets it once checks the port it serves on.
const listenEnv = "CORROSION_PANEL_LISTEN"

// healthcheck GETs the panel's /healthz on this machine: exit 0 when it
// answers 200 OK, 1 otherwise. It exists for container images, which have
// no shell or curl.
func (e env) healthcheck(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	fs.SetOutput(e.stdout)
	rawURL := fs.String("url", "", "URL to check (default: /healthz on the address in "+listenEnv+", else "+app.DefaultListen+")")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return e.fail("healthcheck", fmt.Errorf("%w: %v", cli.ErrUsage, err))
	}
	if fs.NArg() > 0 {
		return e.fail("healthcheck", fmt.Errorf("%w: unexpected argument %q", cli.ErrUsage, fs.Arg(0)))
	}
	target := *rawURL
	if target == "" {
		listen := e.getenv(listenEnv)
		if listen == "" {
			listen = app.DefaultListen
		}
		u, err := healthprobe.LocalURL(listen, "/healthz")
		if err != nil {
			return e.fail("healthcheck", fmt.Errorf("%w: %s: %v", cli.ErrUsage, listenEnv, err))
		}
		target = u
	}
	if err := healthprobe.Check(ctx, target); err != nil {
		if !errors.Is(err, healthprobe.ErrUnhealthy) {
			err = fmt.Errorf("%w: %v", cli.ErrUsage, err) // a bad --url
		}
		return e.fail("healthcheck", err)
	}
	fmt.Fprintln(e.stdout, "healthy:", target)
	return exitOK
}
