package ether

import (
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
)

func parseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("unknown log level %q (debug, info, warn, error)", s)
}

// levelName is the name parseLevel takes for l, or l's number when it is
// none of the four levels (which Validate refuses).
func levelName(l slog.Level) string {
	switch l {
	case slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError:
		return strings.ToLower(l.String())
	}
	return strconv.Itoa(int(l))
}

// NewLogger is the node's logger: text lines on w at cfg.LogLevel, every
// line carrying the node id (so no log call adds it again).
func NewLogger(w io.Writer, cfg Config) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: cfg.LogLevel})).With("node", cfg.NodeID)
}
