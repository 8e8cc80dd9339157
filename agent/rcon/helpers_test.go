package rcon_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/rcon"
)

// logSink sends a client's log lines to t.Log and keeps them for checks.
type logSink struct {
	t  testing.TB
	mu sync.Mutex
	b  bytes.Buffer // guarded by mu
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.b.Write(p)
	l.mu.Unlock()
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newLogger(t testing.TB) (*slog.Logger, *logSink) {
	sink := &logSink{t: t}
	return slog.New(slog.NewTextHandler(sink, &slog.HandlerOptions{Level: slog.LevelDebug})), sink
}

// newClient builds a client with short timeouts for tests and closes it
// at cleanup.
func newClient(t testing.TB, cfg rcon.Config) *rcon.Client {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = 15 * time.Second // generous: the CI box is shared and -race is slow
	}
	if cfg.Logger == nil {
		cfg.Logger, _ = newLogger(t)
	}
	c, err := rcon.New(cfg)
	if err != nil {
		t.Fatalf("rcon.New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func exec(t testing.TB, c *rcon.Client, cmd string) string {
	t.Helper()
	out, err := c.Exec(context.Background(), cmd)
	if err != nil {
		t.Fatalf("Exec(%q): %v", cmd, err)
	}
	return out
}

// bigReply is n bytes of printable, position-dependent text, so that a
// reordered or dropped packet shows.
func bigReply(n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	for i := 0; b.Len() < n; i++ {
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), 7))
		b.WriteString("\n")
	}
	return b.String()[:n]
}

// freePort returns a 127.0.0.1 port nothing listens on.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	return port
}
