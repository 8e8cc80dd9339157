// Command worldsrv is one game world: the 600 ms tick engine, its game
// port (TCP) and HTTP port (status, metrics, map, WebSocket), and its ether
// sidecar (spawned, connected to, or off). `worldsrv --version` prints the
// build.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/corrosion/corrosion/internal/buildinfo"
	"github.com/corrosion/corrosion/internal/cli"
	"github.com/corrosion/corrosion/internal/consolein"
	"github.com/corrosion/corrosion/internal/logdest"
	"github.com/corrosion/corrosion/worldsrv/admin"
	"github.com/corrosion/corrosion/worldsrv/config"
	"github.com/corrosion/corrosion/worldsrv/world"
)

const usage = `usage: worldsrv [flags]
       worldsrv version (also --version)
       worldsrv healthcheck [flags] (exit 0 if this world answers /ready)

Runs one game world. Every flag can also be set through the environment
variable in brackets. Flags:
`

func main() {
	cli.Main(program(os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}

// program is worldsrv's command line: the world's flags, or healthcheck.
func program(getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) cli.Program {
	w := streams{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	return cli.Program{Name: "worldsrv", Usage: printUsage, Stdout: stdout, Stderr: stderr,
		Commands: []cli.Command{{Name: "healthcheck", Run: w.healthcheck}}, Default: w.run}
}

// streams is what worldsrv's commands read from the process, arguments
// aside.
type streams struct {
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
}

// run runs the world until ctx ends.
func (s streams) run(ctx context.Context, args []string) int {
	cfg, err := config.Load(args, s.getenv)
	if err != nil {
		return cli.ConfigExit(s.stdout, s.stderr, "worldsrv", fmt.Errorf("%w\n(worldsrv --help lists the flags)", err), printUsage)
	}
	logOut := logdest.Writer(cfg.LogStdout, s.getenv, s.stdout, s.stderr)
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: cfg.LogLevel})).With("node", cfg.NodeID)
	return cli.Exit(s.stderr, "worldsrv", serve(ctx, cfg, log, s.stdin, s.stdout))
}

func serve(ctx context.Context, cfg config.Config, log *slog.Logger, stdin io.Reader, stdout io.Writer) error {
	log.Info("worldsrv starting", "version", buildinfo.Get().String(), "config", cfg)
	w, err := world.New(ctx, cfg, log)
	if err != nil && ctx.Err() != nil {
		log.Info("stopped during start-up", "err", err)
		return nil // a signal during start-up is an orderly stop
	}
	if err != nil {
		return err
	}
	// The console input: the admin commands, one a line, answered on
	// stdout.
	consolein.Go(ctx, stdin, stdout, func(ctx context.Context, line string) string {
		return admin.ConsoleLine(ctx, w.Console(), log, line)
	}, log)
	return w.Run(ctx)
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, usage)
	cfg := config.Default()
	config.NewFlagSet(&cfg, w).PrintDefaults()
}
