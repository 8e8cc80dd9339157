package ether

import (
	"fmt"
	"io"
	"log/slog"
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
	return 0, fmt.Errorf("unknown level %q (debug, info, warn, error)", s)
}

// NewLogger is the node's logger: text lines on w at cfg.LogLevel, every
// line carrying the node id.
func NewLogger(w io.Writer, cfg Config) *slog.Logger {
	lvl, err := parseLevel(cfg.LogLevel)
	if err != nil {
		lvl = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl})).With("node", cfg.NodeID)
}
