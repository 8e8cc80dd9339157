package admin

import (
	"context"
	"errors"
	"time"
)

// Console is the world as the admin console sees it. The engine implements
// it; the admin servers call it from their connection goroutines, never
// from the tick. An implementation hands each call to the tick goroutine
// (a request with a reply channel on a bounded queue) and waits for the
// answer or for ctx, whichever comes first: every method must return soon
// after ctx is done, even when the tick is stalled, and must not block the
// tick when the caller has gone away. ctx carries the console's per-command
// deadline (Config.CommandTimeout).
type Console interface {
	// Status is a snapshot of the world for the "status" command.
	Status(ctx context.Context) (Status, error)
	// Players lists the names of the players online, in any order.
	Players(ctx context.Context) ([]string, error)
	// Say sends text to every player online as a system message.
	Say(ctx context.Context, text string) error
	// Kick disconnects the player named name (case-insensitive, as names
	// are), saving them as a logout does. ErrNoSuchPlayer when no such
	// player is online.
	Kick(ctx context.Context, name string) error
	// Save saves every player online and returns how many were saved.
	Save(ctx context.Context) (int, error)
	// Shutdown starts the world's shutdown: a countdown of after (zero:
	// at once) with system messages, then save everyone and exit 0. It
	// returns once the countdown has started. ErrShuttingDown when a
	// shutdown is already under way.
	Shutdown(ctx context.Context, after time.Duration) error
}

// Status is what the "status" command shows.
type Status struct {
	Node       uint8
	Seed       uint64
	Biome      string
	Players    int
	MaxPlayers int
	Uptime     time.Duration
	// Ether is the sidecar link state: "up", "down" or "off".
	Ether string
	// Ticks is the number of ticks run; TickP99 the 99th percentile tick
	// time over the engine's recent window.
	Ticks   uint64
	TickP99 time.Duration
}

// Errors a Console returns; the console turns them into reply lines.
var (
	// ErrNoSuchPlayer: Kick named a player who is not online.
	ErrNoSuchPlayer = errors.New("no such player online")
	// ErrShuttingDown: Shutdown while a shutdown is already counting down.
	ErrShuttingDown = errors.New("a shutdown is already under way")
)
