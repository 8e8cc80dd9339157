// Command corrosion-agent supervises the game servers of one host and
// talks to the Corrosion backend over NATS.
//
//	corrosion-agent run --config FILE
//	corrosion-agent validate --config FILE
//	corrosion-agent version
//	corrosion-agent install [--root DIR] [--dry-run] [--config PATH] [--binary PATH] [--print-unit]
//	corrosion-agent uninstall [--root DIR] [--dry-run]
//	corrosion-agent service-status
//	corrosion-agent shutdown-hook   (the systemd unit's ExecStop)
package main

import (
	"context"
	"io"
	"os"

	"github.com/corrosion/corrosion/internal/cli"
)

const usage = `usage:
  corrosion-agent run --config FILE        supervise the instances and serve NATS
  corrosion-agent validate --config FILE   check a config file and exit
  corrosion-agent version                  print version, commit and build time
  corrosion-agent install [--dry-run] [--config FILE] [--binary FILE] [--root DIR]
                                           install the agent as a service (idempotent)
  corrosion-agent install --print-unit     print the systemd unit, change nothing
  corrosion-agent uninstall [--dry-run]    stop and remove the service; keep config and data
  corrosion-agent service-status           is the service installed, enabled, running?
  corrosion-agent shutdown-hook            used by the systemd unit (ExecStop): on a host
                                           shutdown, stop the games gracefully first
`

func main() {
	if code, isService := runService(os.Args[1:]); isService { // Windows service (service_windows.go)
		os.Exit(code)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args. Unlike the other binaries, the agent
// has no root context for every command: `run` has its own, which also
// knows the host-shutdown signal (rootcontext.go), and shutdown-hook
// stays killable by systemd's SIGTERM.
func run(args []string, stdout, stderr io.Writer) int {
	return program(stdout, stderr).Run(context.Background(), args)
}

// program is the agent's command line.
func program(stdout, stderr io.Writer) cli.Program {
	c := streams{stdout: stdout, stderr: stderr}
	return cli.Program{Name: "corrosion-agent", Usage: printUsage, Stdout: stdout, Stderr: stderr, Commands: []cli.Command{
		{Name: "run", Run: c.serve},
		{Name: "validate", Run: c.validate},
		{Name: "install", Run: c.installCmd("install")},
		{Name: "uninstall", Run: c.installCmd("uninstall")},
		{Name: "service-status", Run: c.installCmd("service-status")},
		{Name: "shutdown-hook", Run: func(context.Context, []string) int { return shutdownHook(stderr) }},
		{Name: "-v", Run: func(context.Context, []string) int { cli.PrintVersion(stdout, "corrosion-agent"); return cli.ExitOK }},
	}}
}

func printUsage(w io.Writer) { io.WriteString(w, usage) }

// streams is where the agent's commands write.
type streams struct {
	stdout, stderr io.Writer
}
