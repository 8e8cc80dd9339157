// Command worldbot is the world's load generator: it logs N bot players
// into one or more worlds over TCP (or WebSocket with --ws), builds a
// friend graph, walks them around, sends PMs at a rate and prints a report
// (text, or JSON with --json). It stops by itself after --duration, or at
// Ctrl-C.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/corrosion/corrosion/worldsrv/bot/swarm"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

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

// parse turns the flags into a swarm.Config; asJSON says --json.
func parse(args []string, stderr io.Writer) (cfg swarm.Config, asJSON bool, verbose bool, err error) {
	fs := flag.NewFlagSet("worldbot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var list addrs
	fs.Var(&list, "addr", "world game address host:port (repeatable, or comma-separated)")
	fs.Var(&list, "addr2", "another world's game address (same as a second --addr)")
	fs.BoolVar(&cfg.WebSocket, "ws", false, "connect over WebSocket: --addr is then each world's HTTP address (host:port) and the bots use /ws")
	fs.IntVar(&cfg.Bots, "bots", 10, "number of bots")
	fs.StringVar(&cfg.Prefix, "prefix", "bot", "bot names are prefix+number")
	fs.StringVar(&cfg.Password, "password", "pw", "the bots' password")
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

func run(args []string, stdout, stderr io.Writer) int {
	cfg, asJSON, verbose, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "worldbot: %v\n", err)
		return 2
	}
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := swarm.Run(ctx, cfg)
	if werr := write(stdout, rep, asJSON); werr != nil {
		fmt.Fprintf(stderr, "worldbot: write report: %v\n", werr)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "worldbot: %v\n", err)
		return 1
	}
	return 0
}

func write(w io.Writer, rep swarm.Report, asJSON bool) error {
	if !asJSON {
		return rep.WriteText(w)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
