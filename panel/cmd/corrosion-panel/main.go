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
	"io"
	"log/slog"
	"os"

	"github.com/corrosion/corrosion/internal/buildinfo"
	"github.com/corrosion/corrosion/internal/cli"
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
	cli.Main(program(env{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}))
}

// Exit codes (cli's, the same in every binary).
const (
	exitOK    = cli.ExitOK
	exitFail  = cli.ExitFail  // the command ran and failed
	exitUsage = cli.ExitUsage // bad command line
)

// run runs the command line args.
func run(ctx context.Context, args []string, e env) int {
	return program(e).Run(ctx, args)
}

// program is the panel's command line.
func program(e env) cli.Program {
	return cli.Program{Name: "corrosion-panel", Usage: printUsage, Stdout: e.stdout, Stderr: e.stderr, Commands: []cli.Command{
		{Name: "serve", Run: e.serve},
		{Name: "migrate", Run: e.migrate},
		{Name: "user", Run: e.addOnly("user add --name N --role admin|operator|viewer [--licenses a,b] [--password-stdin]", e.userAdd)},
		{Name: "license", Run: e.addOnly("license add --id ID [--label L]", e.licenseAdd)},
		{Name: "dev", Run: e.dev},
		{Name: "healthcheck", Run: e.healthcheck},
	}}
}

func printUsage(w io.Writer) { io.WriteString(w, usage) }

// fail prints one line for a failed command and returns its exit code:
// exitUsage for a bad configuration or flag, exitOK for --help (the flag
// set has printed its usage), else exitFail.
func (e env) fail(cmd string, err error) int {
	if errors.Is(err, app.ErrConfig) {
		err = cli.BadUsage(err)
	}
	return cli.Exit(e.stderr, "corrosion-panel "+cmd, err)
}

func (e env) serve(ctx context.Context, args []string) int {
	cfg, err := app.LoadConfig("serve", args, e.getenv, e.stdout)
	if err != nil {
		return e.fail("serve", err)
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	log.Info("corrosion-panel starting", "version", buildinfo.Get().String())
	if err := app.Run(ctx, cfg, log); err != nil && !errors.Is(err, context.Canceled) {
		return e.fail("serve", err)
	}
	return exitOK
}
