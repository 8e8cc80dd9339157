package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// Reply is a command's answer. Failed replies are errors the operator
// should see as such (WebRCON sends them with Type "Error"); the text is
// shown either way.
type Reply struct {
	Text   string
	Failed bool
}

func okReply(format string, args ...any) Reply {
	return Reply{Text: fmt.Sprintf(format, args...)}
}

func failReply(format string, args ...any) Reply {
	return Reply{Text: fmt.Sprintf(format, args...), Failed: true}
}

// Exec parses line and runs it on c. Parse errors and console errors come
// back as failed replies, never as a Go error: every line gets an answer.
func Exec(ctx context.Context, c Console, line string) Reply {
	cmd, err := Parse(line)
	if err != nil {
		return failReply("%s", err.Error())
	}
	return run(ctx, c, cmd)
}

func run(ctx context.Context, c Console, cmd Command) Reply {
	switch cmd.Verb {
	case VerbHelp:
		return okReply("%s", helpText())
	case VerbStatus:
		st, err := c.Status(ctx)
		if err != nil {
			return consoleFailure("status", err)
		}
		return okReply("%s", formatStatus(st))
	case VerbPlayers:
		names, err := c.Players(ctx)
		if err != nil {
			return consoleFailure("players", err)
		}
		return okReply("%s", formatPlayers(names))
	case VerbSay:
		if err := c.Say(ctx, cmd.Text); err != nil {
			return consoleFailure("say", err)
		}
		return okReply("said: %s", cmd.Text)
	case VerbKick:
		return kick(ctx, c, cmd.Name)
	case VerbSave:
		n, err := c.Save(ctx)
		if err != nil {
			return consoleFailure("save", err)
		}
		return okReply("saved %d %s", n, plural(n, "player", "players"))
	case VerbShutdown:
		return shutdown(ctx, c, cmd.Delay)
	}
	return failReply("internal error: unhandled command %d", cmd.Verb)
}

func kick(ctx context.Context, c Console, name string) Reply {
	err := c.Kick(ctx, name)
	switch {
	case errors.Is(err, ErrNoSuchPlayer):
		return failReply("kick: no player named %q is online", name)
	case err != nil:
		return consoleFailure("kick", err)
	}
	return okReply("kicked %s", name)
}

func shutdown(ctx context.Context, c Console, after time.Duration) Reply {
	err := c.Shutdown(ctx, after)
	switch {
	case errors.Is(err, ErrShuttingDown):
		return failReply("shutdown: a shutdown is already under way")
	case err != nil:
		return consoleFailure("shutdown", err)
	case after == 0:
		return okReply("shutting down now: saving everyone, then exiting")
	}
	secs := int(after / time.Second)
	return okReply("shutting down in %d %s: saving everyone, then exiting", secs, plural(secs, "second", "seconds"))
}

// consoleFailure words an error from the Console: a deadline is the world
// being too busy to answer, which the operator may retry.
func consoleFailure(verb string, err error) Reply {
	if errors.Is(err, context.DeadlineExceeded) {
		return failReply("%s: the world did not answer in time (the tick may be overloaded); try again", verb)
	}
	return failReply("%s failed: %v", verb, err)
}

func formatStatus(st Status) string {
	return fmt.Sprintf("node %d  seed %d  biome %s\nplayers %d/%d  uptime %s  ether %s\nticks %d  tick p99 %.1f ms",
		st.Node, st.Seed, st.Biome,
		st.Players, st.MaxPlayers, st.Uptime.Truncate(time.Second), st.Ether,
		st.Ticks, float64(st.TickP99)/float64(time.Millisecond))
}

func formatPlayers(names []string) string {
	if len(names) == 0 {
		return "no players online"
	}
	names = slices.Clone(names)
	slices.Sort(names)
	return fmt.Sprintf("%d %s online: %s", len(names), plural(len(names), "player", "players"), strings.Join(names, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ConsoleLine runs one line typed on the world's console (its stdin, which
// the agent writes for the panel's "Send"): the same command table as
// Source RCON and WebRCON, bounded by DefaultCommandTimeout, logged as
// they are. A failed reply comes back as its text too.
func ConsoleLine(ctx context.Context, c Console, log *slog.Logger, line string) string {
	ctx, cancel := context.WithTimeout(ctx, DefaultCommandTimeout)
	defer cancel()
	r := Exec(ctx, c, line)
	log.Info("console command", "kind", "stdin", "command", clip(line, 120), "failed", r.Failed)
	return r.Text
}
