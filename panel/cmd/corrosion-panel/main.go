// Command corrosion-panel is the operator web panel and backend of the
// Corrosion fleet manager.
//
//	corrosion-panel serve [flags]
//	corrosion-panel migrate [--database-url URL]
//	corrosion-panel user add --name N --role R [--licenses L1,L2] [--password-stdin]
//	corrosion-panel license add --id ID [--label L]
//	corrosion-panel dev [flags]
//	corrosion-panel healthcheck [--url URL]
//	corrosion-panel version
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
	"github.com/corrosion/corrosion/panel/app"
)

const usage = `usage: corrosion-panel <command> [flags]

commands:
  serve         serve the panel (flags and environment: corrosion-panel serve --help)
  migrate       create the database if missing and apply every migration
  user add      add an operator: --name N --role admin|operator|viewer [--licenses a,b] [--password-stdin]
  license add   add a license (one agent's host): --id ID [--label L]
  dev           the whole system on this machine: NATS, Postgres, the panel, an agent with two worlds
  healthcheck   exit 0 if the panel on this machine answers /healthz (for container images): [--url URL]
  version       print the version (also --version)

Every command takes --help.
`

// env is what a command reads from its process: arguments aside.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr})
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and failed
	exitUsage = 2 // bad command line
)

func run(ctx context.Context, args []string, e env) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "version", "--version", "-version":
		fmt.Fprintln(e.stdout, "corrosion-panel", buildinfo.Get().String())
		return exitOK
	case "help", "-h", "--help", "-help":
		fmt.Fprint(e.stdout, usage)
		return exitOK
	case "serve":
		return serve(ctx, args[1:], e)
	case "migrate":
		return migrate(ctx, args[1:], e)
	case "user":
		return user(ctx, args[1:], e)
	case "license":
		return license(ctx, args[1:], e)
	case "dev":
		return runDev(ctx, args[1:], e)
	case "healthcheck":
		return healthcheck(ctx, args[1:], e)
	}
	fmt.Fprintf(e.stderr, "corrosion-panel: unknown command %q\n%s", args[0], usage)
	return exitUsage
}

// fail prints one line for a failed command and returns its exit code:
// exitUsage for a bad configuration or flag, else exitFail.
func fail(e env, cmd string, err error) int {
	fmt.Fprintf(e.stderr, "corrosion-panel %s: %v\n", cmd, err)
	if errors.Is(err, app.ErrConfig) || errors.Is(err, errUsage) {
		return exitUsage
	}
	return exitFail
}

// errUsage marks a bad command line.
var errUsage = errors.New("usage")

func serve(ctx context.Context, args []string, e env) int {
	cfg, err := app.LoadConfig("serve", args, e.getenv, e.stdout)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return fail(e, "serve", err)
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	log.Info("corrosion-panel starting", "version", buildinfo.Get().String())
	if err := app.Run(ctx, cfg, log); err != nil && !errors.Is(err, context.Canceled) {
		return fail(e, "serve", err)
	}
	return exitOK
}
