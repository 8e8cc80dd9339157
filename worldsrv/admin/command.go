package admin

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// Verb is a console command's name.
type Verb uint8

// The console's commands.
const (
	VerbHelp Verb = iota + 1
	VerbStatus
	VerbPlayers
	VerbSay
	VerbKick
	VerbSave
	VerbShutdown
)

// Limits on command arguments.
const (
	// MaxSayBytes caps the text of "say".
	MaxSayBytes = 200
	// MaxShutdownDelay caps "shutdown [seconds]".
	MaxShutdownDelay = time.Hour
)

// verbInfo describes one command for the parser and for "help".
type verbInfo struct {
	verb  Verb
	name  string
	usage string
	help  string
}

// verbs is the command table, in the order "help" lists it.
var verbs = []verbInfo{
	{VerbStatus, "status", "status", "node, seed, biome, players, uptime, sidecar link, tick time"},
	{VerbPlayers, "players", "players", "the names of the players online"},
	{VerbSay, "say", "say <text>", "a system message to every player online"},
	{VerbKick, "kick", "kick <name>", "disconnect a player (saved first)"},
	{VerbSave, "save", "save", "save every player online"},
	{VerbShutdown, "shutdown", "shutdown [seconds]", "count down, save everyone, exit (default 0, max 3600)"},
	{VerbHelp, "help", "help", "this list"},
}

// Command is one parsed console line.
type Command struct {
	Verb Verb
	// Text is the message of VerbSay.
	Text string
	// Name is the player of VerbKick.
	Name string
	// Delay is the countdown of VerbShutdown.
	Delay time.Duration
}

// ParseError is a line that is not a valid command; its text is the reply.
type ParseError struct{ msg string }

func (e *ParseError) Error() string { return e.msg }

func parseErrorf(format string, args ...any) *ParseError {
	return &ParseError{msg: fmt.Sprintf(format, args...)}
}

// Parse parses one console line: a command name (case-insensitive) and its
// argument, separated by white space.
func Parse(line string) (Command, error) {
	line = strings.TrimSpace(line)
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	name = strings.ToLower(name)
	if name == "" {
		return Command{}, parseErrorf("empty command; commands: %s", commandNames())
	}
	info, ok := lookupVerb(name)
	if !ok {
		return Command{}, parseErrorf("unknown command %q; commands: %s (\"help\" explains them)", clip(name, 32), commandNames())
	}
	switch info.verb {
	case VerbSay:
		return parseSay(arg)
	case VerbKick:
		return parseKick(arg)
	case VerbShutdown:
		return parseShutdown(arg)
	}
	if arg != "" {
		return Command{}, parseErrorf("%s takes no argument; usage: %s", info.name, info.usage)
	}
	return Command{Verb: info.verb}, nil
}

func lookupVerb(name string) (verbInfo, bool) {
	for _, v := range verbs {
		if v.name == name {
			return v, true
		}
	}
	return verbInfo{}, false
}

func parseSay(text string) (Command, error) {
	switch {
	case text == "":
		return Command{}, parseErrorf("say needs a message; usage: say <text>")
	case len(text) > MaxSayBytes:
		return Command{}, parseErrorf("say: message is %d bytes, limit %d", len(text), MaxSayBytes)
	case !printable(text):
		return Command{}, parseErrorf("say: message holds control characters or invalid UTF-8")
	}
	return Command{Verb: VerbSay, Text: text}, nil
}

func parseKick(name string) (Command, error) {
	switch {
	case name == "":
		return Command{}, parseErrorf("kick needs a player name; usage: kick <name>")
	case !proto.ValidName(name):
		return Command{}, parseErrorf("kick: %q is not a valid player name (1-%d letters, digits, spaces or '_')", clip(name, 32), proto.MaxNameLen)
	}
	return Command{Verb: VerbKick, Name: name}, nil
}

func parseShutdown(arg string) (Command, error) {
	if arg == "" {
		return Command{Verb: VerbShutdown}, nil
	}
	maxSec := int(MaxShutdownDelay / time.Second)
	n, err := strconv.Atoi(arg)
	if err != nil || n < 0 || n > maxSec || strings.HasPrefix(arg, "+") {
		return Command{}, parseErrorf("shutdown: %q is not a number of seconds from 0 to %d; usage: shutdown [seconds]", clip(arg, 32), maxSec)
	}
	return Command{Verb: VerbShutdown, Delay: time.Duration(n) * time.Second}, nil
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	return strings.IndexFunc(s, unicode.IsControl) < 0
}

// clip shortens s for quoting in a reply, replacing invalid UTF-8.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func commandNames() string {
	names := make([]string, len(verbs))
	for i, v := range verbs {
		names[i] = v.name
	}
	return strings.Join(names, ", ")
}

// helpText is the reply to "help".
func helpText() string {
	var b strings.Builder
	b.WriteString("commands:\n")
	for _, v := range verbs {
		fmt.Fprintf(&b, "  %-20s %s\n", v.usage, v.help)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
