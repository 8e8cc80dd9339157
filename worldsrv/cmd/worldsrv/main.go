// Command worldsrv is one game world: the 600 ms tick engine, its game
// port (TCP) and HTTP port (status, metrics, map, WebSocket), and its ether
// sidecar (spawned, connected to, or off). `worldsrv --version` prints the
// build.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/corrosion/corrosion/internal/buildinfo"
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
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "version", "--version", "-version":
			fmt.Fprintln(stdout, "worldsrv", buildinfo.Get().String())
			return 0
		case "healthcheck":
			return healthcheck(args[1:], getenv, stdout, stderr)
		}
	}
	cfg, err := config.Load(args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "worldsrv: %v\n(worldsrv --help lists the flags)\n", err)
		return 2
	}
	logOut := logdest.Writer(cfg.LogStdout, getenv, stdout, stderr)
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: cfg.LogLevel})).With("node", cfg.NodeID)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, cfg, log, os.Stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "worldsrv: %v\n", err)
		return 1
	}
	return 0
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
	// stdout. Not waited for: a read nobody answers never holds up the
	// shutdown, and a closed stdin (/dev/null, systemd) just ends it.
	go func() {
		err := consolein.Serve(ctx, stdin, stdout, func(ctx context.Context, line string) string {
			return admin.ConsoleLine(ctx, w.Console(), log, line)
		})
		if err != nil {
			log.Warn("console input ended", "err", err)
		}
	}()
	return w.Run(ctx)
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, usage)
	cfg := config.Default()
	config.NewFlagSet(&cfg, w).PrintDefaults()
}
