package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/corrosion/corrosion/internal/healthprobe"
	"github.com/corrosion/corrosion/worldsrv/config"
)

// healthcheck GETs this world's /ready: exit 0 when it answers 200 OK (the
// tick runs and, unless ether is off, the sidecar is linked), 1 otherwise,
// 2 for a bad command line. It takes the world's own flags and environment
// (--node-id, RS_NODE_ID, --http-listen), so it checks the port the world
// with the same settings serves on. It exists for container images, which
// have no shell or curl.
func healthcheck(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := config.Load(args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, "usage: worldsrv healthcheck [worldsrv flags]\n\nExits 0 if the world with these flags answers /ready on this machine.\n")
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "worldsrv healthcheck: %v\n", err)
		return 2
	}
	u, err := healthprobe.LocalURL(cfg.HTTPListen, "/ready")
	if err != nil {
		fmt.Fprintf(stderr, "worldsrv healthcheck: %v\n", err)
		return 2
	}
	if err := healthprobe.Check(context.Background(), u); err != nil {
		fmt.Fprintf(stderr, "worldsrv healthcheck: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "ready:", u)
	return 0
}
