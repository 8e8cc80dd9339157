// Package cli is the scaffolding every Corrosion binary's main shares:
// the subcommand dispatch (`version`, `help`, an unknown command), the
// exit codes, the one-line failure message, and the root context that
// SIGINT and SIGTERM cancel. Each binary keeps its own usage text, flags
// and commands; this package only decides how they are reached and how a
// command's outcome becomes an exit code.
package cli

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/corrosion/corrosion/internal/buildinfo"
)

// Exit codes every binary uses.
const (
	ExitOK    = 0 // done as asked (also --help and version)
	ExitFail  = 1 // the command ran and failed
	ExitUsage = 2 // a bad command line or configuration: nothing was done
)

// versionWords and helpWords are the first arguments that print the
// version or the usage (the flag package's own -h and -help included).
var (
	versionWords = []string{"version", "--version", "-version"}
	helpWords    = []string{"help", "-h", "--help", "-help"}
)

// A Run is a command: it is given the arguments after the command's name
// and returns the process's exit code.
type Run func(ctx context.Context, args []string) int

// Command is one subcommand of a program.
type Command struct {
	Name string // the first argument that selects it
	Run  Run
}

// Program is one binary's command line. Its zero Default makes it a
// program of subcommands (`ether run`, `corrosion-panel serve`); a
// program with a Default runs it for any first argument that is not
// one of its commands (worldsrv's flags, worldbot's).
type Program struct {
	Name     string          // the binary; the version line and the "unknown command" message start with it
	Usage    func(io.Writer) // prints the usage (no args, help, an unknown command); unused with a Default
	Commands []Command
	Default  Run       // nil: subcommands only
	Stdout   io.Writer // version and help
	Stderr   io.Writer // the usage after a bad command line
}

// Run runs the command that args names and returns its exit code:
//   - version, --version, -version: "<name> <version, commit, build time>"
//     on Stdout, ExitOK;
//   - a command's name: that command, with the arguments after it;
//   - anything else, with a Default: the Default, with every argument
//     (it handles its own --help);
//   - no argument: the usage on Stderr, ExitUsage;
//   - help, -h, --help, -help: the usage on Stdout, ExitOK;
//   - else: "<name>: unknown command "x"" and the usage on Stderr, ExitUsage.
func (p Program) Run(ctx context.Context, args []string) int {
	if len(args) > 0 && slices.Contains(versionWords, args[0]) {
		PrintVersion(p.Stdout, p.Name)
		return ExitOK
	}
	if len(args) > 0 {
		if i := slices.IndexFunc(p.Commands, func(c Command) bool { return c.Name == args[0] }); i >= 0 {
			return p.Commands[i].Run(ctx, args[1:])
		}
	}
	switch {
	case p.Default != nil:
		return p.Default(ctx, args)
	case len(args) == 0:
		p.Usage(p.Stderr)
		return ExitUsage
	case slices.Contains(helpWords, args[0]):
		p.Usage(p.Stdout)
		return ExitOK
	}
	fmt.Fprintf(p.Stderr, "%s: unknown command %q\n", p.Name, args[0])
	p.Usage(p.Stderr)
	return ExitUsage
}

// PrintVersion writes the version line of the binary name to w.
func PrintVersion(w io.Writer, name string) {
	fmt.Fprintln(w, name, buildinfo.Get().String())
}
