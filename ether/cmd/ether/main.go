// Command ether is the social sidecar of one game world: `ether run`
// serves the world link and joins the cluster, `ether migrate` prepares
// the database, `ether version` prints the build.
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

	"github.com/corrosion/corrosion/ether"
	"github.com/corrosion/corrosion/internal/buildinfo"
	"github.com/corrosion/corrosion/internal/consolein"
	"github.com/corrosion/corrosion/internal/logdest"
)

const usage = `usage: ether <command> [flags]

commands:
  run       serve the world link and join the cluster
  migrate   create the database if missing and apply migrations
  version   print the version (also --version)

Every flag can also be set through the environment variable in brackets.
Flags of run and migrate:
`

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	switch args[0] {
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "ether", buildinfo.Get().String())
		return 0
	case "help", "-h", "--help", "-help":
		printUsage(stdout)
		return 0
	case "run", "migrate":
	default:
		fmt.Fprintf(stderr, "ether: unknown command %q\n", args[0])
		printUsage(stderr)
		return 2
	}
	cfg, err := ether.LoadConfig(args[1:], getenv)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "ether %s: %v\n", args[0], err)
		return 2
	}
	log := ether.NewLogger(logdest.Writer(cfg.LogStdout, getenv, stdout, stderr), cfg)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if args[0] == "migrate" {
		err = ether.Migrate(ctx, cfg, log)
	} else {
		err = serve(ctx, cfg, log, os.Stdin, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ether %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, cfg ether.Config, log *slog.Logger, stdin io.Reader, stdout io.Writer) error {
	node, err := ether.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	// The console input: status, health, help, answered on stdout. Not
	// waited for: it never holds up the shutdown.
	go func() {
		err := consolein.Serve(ctx, stdin, stdout, func(_ context.Context, line string) string { return node.ConsoleLine(line) })
		if err != nil {
			log.Warn("console input ended", "err", err)
		}
	}()
	return node.Run(ctx)
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, usage)
	cfg := ether.DefaultConfig()
	fs := ether.NewFlagSet(&cfg, w)
	fs.PrintDefaults()
}
