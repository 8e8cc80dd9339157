package ether

import (
	"io"
	"log/slog"
)

// NewLogger is the node's logger: text lines on w at cfg.LogLevel, every
// line carrying the node id (so no log call adds it again).
func NewLogger(w io.Writer, cfg Config) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: cfg.LogLevel})).With("node", cfg.NodeID)
}
