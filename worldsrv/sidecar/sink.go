package sidecar

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/corrosion/corrosion/agent/supervise"
	"github.com/corrosion/corrosion/agent/wire"
)

// tailLines is how many of ether's last output lines an error quotes.
const tailLines = 12

// logSink writes ether's output into the world's log and keeps its last
// lines for error messages. The supervisor calls it with its own locks
// held; logSink.mu is a leaf lock and nothing here calls back.
type logSink struct {
	log *slog.Logger // immutable; component=ether

	mu   sync.Mutex
	tail []string // guarded by mu; ether's last stdout/stderr lines, oldest first
}

var _ supervise.Sink = (*logSink)(nil)

// State logs a crash as a warning (the supervisor logs every transition
// at info).
func (k *logSink) State(_ string, ev wire.StateEvent) {
	if ev.State != wire.StateCrashed {
		return
	}
	code := "unknown"
	if ev.ExitCode != nil {
		code = strconv.Itoa(*ev.ExitCode)
	}
	k.log.Warn("ether exited unexpectedly", "exit_code", code, "crashes", ev.CrashCount, "next", ev.Message)
}

// Console logs each line: stdout at info, stderr at warn, a line with its
// own slog level (level=…) at that level, the supervisor's notices at info.
func (k *logSink) Console(_ string, lines []wire.ConsoleLine) {
	for _, l := range lines {
		level := slog.LevelInfo
		switch l.Stream {
		case wire.StreamAgent:
			k.log.Info(l.Text, "stream", "supervise")
			continue
		case wire.StreamStderr:
			level = slog.LevelWarn
		}
		if own, ok := lineLevel(l.Text); ok {
			level = own
		}
		k.log.Log(context.Background(), level, l.Text, "stream", l.Stream)
		k.remember(l.Text)
	}
}

func (k *logSink) remember(line string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.tail) == tailLines {
		k.tail = append(k.tail[:0], k.tail[1:]...)
	}
	k.tail = append(k.tail, line)
}

// lastLines is ether's recent output, for an error message.
func (k *logSink) lastLines() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return strings.Join(k.tail, "\n")
}

// lineLevel reads the level of a slog text line ("time=… level=WARN msg=…").
func lineLevel(line string) (slog.Level, bool) {
	i := strings.Index(line, "level=")
	if i < 0 || (i > 0 && line[i-1] != ' ') {
		return 0, false
	}
	word, _, _ := strings.Cut(line[i+len("level="):], " ")
	var l slog.Level
	if err := l.UnmarshalText([]byte(word)); err != nil {
		return 0, false
	}
	return l, true
}
