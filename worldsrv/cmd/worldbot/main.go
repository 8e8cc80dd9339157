// Command worldbot is the world's load generator: it logs N bot players
// into one or more worlds over TCP (or WebSocket with --ws), builds a
// friend graph, walks them around, sends PMs at a rate and prints a report
// (text, or JSON with --json). It stops by itself after --duration, or at
// Ctrl-C.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/corrosion/corrosion/internal/cli"
	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/worldsrv/bot/swarm"
)

func main() {
	cli.Main(program(os.Stdout, os.Stderr))
}

// program is worldbot's command line: its flags (--help lists them), or
// version.
func program(stdout, stderr io.Writer) cli.Program {
	return cli.Program{Name: "worldbot", Stdout: stdout, Stderr: stderr,
		Default: func(ctx context.Context, args []string) int { return run(ctx, args, os.Getenv, stdout, stderr) }}
}

// passwordEnv is the variable that gives the bots' password without
// putting it on the command line (which every local user reads in ps).
const passwordEnv = "WORLDBOT_PASSWORD"

// defaultPassword is the bots' password when neither passwordEnv nor a
// flag gives one: the load tests' accounts use it.
const defaultPassword = "pw"

// addrs is a repeatable --addr (also comma-separated).
type addrs []string

func (a *addrs) String() string { return strings.Join(*a, ",") }

func (a *addrs) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*a = append(*a, v)
		}
	}
	return nil
}

// parse turns the flags (over the environment getenv reads) into a
// swarm.Config; asJSON says --json.
func parse(args []string, getenv func(string) string, stderr io.Writer) (cfg swarm.Config, asJSON bool, verbose bool, err error) {
	fs := flag.NewFlagSet("worldbot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var list addrs
	fs.Var(&list, "addr", "world game address host:port (repeatable, or comma-separated)")
	fs.Var(&list, "addr2", "another world's game address (same as a second --addr)")
	fs.BoolVar(&cfg.WebSocket, "ws", false, "connect over WebSocket: --addr is then each world's HTTP address (host:port) and the bots use /ws")
	fs.IntVar(&cfg.Bots, "bots", 10, "number of bots")
	fs.StringVar(&cfg.Prefix, "prefix", "bot", "bot names are prefix+number")
	cfg.Password = defaultPassword
	if pw := getenv(passwordEnv); pw != "" {
		cfg.Password = pw
	}
	// A Func flag: --help shows no default, which could be the variable's.
	fs.Func("password", flagval.SecretUsage("the bots' password (default "+defaultPassword+")", passwordEnv, "password-file"), flagval.String(&cfg.Password))
	fs.Func("password-file", "file holding the bots' password", flagval.SecretFile(&cfg.Password))
	fs.IntVar(&cfg.Friends, "friends", 0, "friends each bot adds")
	fs.DurationVar(&cfg.FriendsOnline, "friends-online", 0, "after the friend requests, wait up to this long until every bot sees its friends online, so early PMs are not answered offline (0: don't wait; a world without ether never shows friends online, so the wait runs out)")
	fs.BoolVar(&cfg.Walk, "walk", false, "walk the bots to random targets")
	fs.IntVar(&cfg.WalkReach, "walk-reach", swarm.DefaultWalkReach, "a walk's target is within this many tiles")
	fs.Float64Var(&cfg.PMRate, "pm-rate", 0, "private messages per second, all bots together")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "steady phase after the logins")
	fs.Float64Var(&cfg.Ramp, "ramp", 0, "logins started per second (0: as fast as --in-flight allows)")
	fs.IntVar(&cfg.InFlight, "in-flight", swarm.DefaultInFlight, "logins in flight at once")
	fs.Int64Var(&cfg.Seed, "seed", 0, "random seed for targets and PM pairs (0: from the clock)")
	fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	fs.BoolVar(&verbose, "v", false, "log each failure to stderr")
	if err = fs.Parse(args); err != nil {
		return cfg, false, false, err
	}
	if fs.NArg() > 0 {
		return cfg, false, false, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg.Addrs = list
	return cfg, asJSON, verbose, cfg.Validate()
}

// run runs the swarm until its --duration is over or ctx ends, and
// prints the report.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, asJSON, verbose, err := parse(args, getenv, stderr)
	if err != nil {
		return cli.Exit(stderr, "worldbot", cli.BadUsage(err))
	}
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	rep, err := swarm.Run(ctx, cfg)
	if werr := write(stdout, rep, asJSON); werr != nil {
		return cli.Exit(stderr, "worldbot", fmt.Errorf("write report: %w", werr))
	}
	return cli.Exit(stderr, "worldbot", err)
}

func write(w io.Writer, rep swarm.Report, asJSON bool) error {
	if !asJSON {
		return rep.WriteText(w)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
