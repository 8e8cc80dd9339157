package main

import (
	"context"
	"fmt"
	"io"

	"github.com/corrosion/corrosion/internal/cli"
	"github.com/corrosion/corrosion/internal/healthprobe"
	"github.com/corrosion/corrosion/worldsrv/config"
)

// healthcheck GETs this world's /ready: exit 0 when it answers 200 OK (the
// tick runs and, unless ether is off, the sidecar is linked), 1 otherwise,
// 2 for a bad command line. It takes the world's own flags and environment
// (--node-id, RS_NODE_ID, --http-listen), so it checks the port the world
// with the same settings serves on. It exists for container images, which
// have no shell or curl.
func (s streams) healthcheck(ctx context.Context, args []string) int {
	cfg, err := config.Load(args, s.getenv)
	if err != nil {
		return cli.ConfigExit(s.stdout, s.stderr, "worldsrv healthcheck", err, healthcheckUsage)
	}
	u, err := healthprobe.LocalURL(cfg.HTTPListen, "/ready")
	if err != nil {
		return cli.Exit(s.stderr, "worldsrv healthcheck", cli.BadUsage(err))
	}
	if err := healthprobe.Check(ctx, u); err != nil {
		return cli.Exit(s.stderr, "worldsrv healthcheck", err)
	}
	fmt.Fprintln(s.stdout, "ready:", u)
	return cli.ExitOK
}

func healthcheckUsage(w io.Writer) {
	fmt.Fprint(w, "usage: worldsrv healthcheck [worldsrv flags]\n\nExits 0 if the world with these flags answers /ready on this machine.\n")
}
