// Command ether is the social sidecar of one game world: `ether run`
// serves the world link and joins the cluster, `ether migrate` prepares
// the database, `ether version` prints the build.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/corrosion/corrosion/ether"
	"github.com/corrosion/corrosion/internal/cli"
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
	cli.Main(program(os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}

// program is ether's command line: run and migrate, on these streams.
func program(getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) cli.Program {
	c := streams{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	return cli.Program{Name: "ether", Usage: printUsage, Stdout: stdout, Stderr: stderr,
		Commands: []cli.Command{{Name: "run", Run: c.run}, {Name: "migrate", Run: c.migrate}}}
}

// streams is what ether's commands read from the process, arguments aside.
type streams struct {
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
}

func (c streams) run(ctx context.Context, args []string) int {
	return c.withConfig(ctx, "run", args, func(ctx context.Context, cfg ether.Config, log *slog.Logger) error {
		node, err := ether.New(ctx, cfg, log)
		if err != nil {
			return err
		}
		// The console input: status, health, help, answered on stdout.
		consolein.Go(ctx, c.stdin, c.stdout, func(_ context.Context, line string) string { return node.ConsoleLine(line) }, log)
		return node.Run(ctx)
	})
}

func (c streams) migrate(ctx context.Context, args []string) int {
	return c.withConfig(ctx, "migrate", args, ether.Migrate)
}

// withConfig loads the flags and environment of the command name and
// runs do with them and ether's logger: --help prints the usage, a bad
// flag or value exits 2, a failure of do exits 1.
func (c streams) withConfig(ctx context.Context, name string, args []string, do func(context.Context, ether.Config, *slog.Logger) error) int {
	cfg, err := ether.LoadConfig(args, c.getenv)
	if err != nil {
		return cli.ConfigExit(c.stdout, c.stderr, "ether "+name, err, printUsage)
	}
	log := ether.NewLogger(logdest.Writer(cfg.LogStdout, c.getenv, c.stdout, c.stderr), cfg)
	return cli.Exit(c.stderr, "ether "+name, do(ctx, cfg, log))
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, usage)
	cfg := ether.DefaultConfig()
	fs := ether.NewFlagSet(&cfg, w)
	fs.PrintDefaults()
}
