// Package rcon holds the RCON clients the host agent uses to run console
// commands on the game servers it supervises: Valve Source RCON over TCP and
// Rust-style WebRCON over WebSocket, always on 127.0.0.1. Test servers for
// both live in agent/rcon/rcontest.
package rcon

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind is an RCON protocol. Which one a game speaks is the agent config's
// rule (config.InferRCONKind); this package only speaks them.
type Kind string

// RCON kinds, as written in [instance.rcon] kind.
const (
	KindSource  Kind = "source"
	KindWebRCON Kind = "webrcon"
)

// Defaults and limits.
const (
	// DefaultTimeout bounds one Exec (waiting for the connection, dial,
	// auth, command and reply) when Config.Timeout is zero.
	DefaultTimeout = 10 * time.Second
	// DefaultQuietPeriod ends a Source RCON reply from a server that never
	// echoes the probe packet, once data has arrived and nothing more came
	// for this long.
	DefaultQuietPeriod = 250 * time.Millisecond
	// MaxResponseBytes caps one reply; a longer one is ErrTooLarge.
	MaxResponseBytes = 1 << 20
	// MaxCommandBytes caps one command: a Source RCON packet is at most
	// 4096 bytes, 10 of which are header and terminators.
	MaxCommandBytes = 4096 - 10
)

// Config configures one Client. The host is always 127.0.0.1: the agent
// runs next to the game server.
type Config struct {
	Kind     Kind
	Port     int
	Password string // never logged, never in an error
	// Timeout bounds each Exec; DefaultTimeout when zero.
	Timeout time.Duration
	// WebRCONPath is the URL path before the password (WebRCON only):
	// "/" (Rust's ws://127.0.0.1:port/password) when empty; the world
	// server serves it under "/rcon/".
	WebRCONPath string
	// QuietPeriod: see DefaultQuietPeriod (Source RCON only).
	QuietPeriod time.Duration
	// OnBroadcast receives WebRCON frames that are not a command's reply
	// (chat, log lines, "[rcon] " echoes, late replies). It is called from
	// one goroutine, in order; it may block, but while it does further
	// frames queue up to a bound (256 frames, 4 MiB) and then are dropped
	// (and counted in a log line). It is not called after Close returns
	// (one call in progress may still finish). May be nil.
	OnBroadcast func(text string)
	// Logger; slog.DiscardHandler when nil.
	Logger *slog.Logger
}

// executor is one protocol's connection manager.
type executor interface {
	exec(ctx context.Context, command string) (string, error)
	close() error
}

// Client runs commands on one instance's RCON port, keeping one connection
// open between commands and redialling when it breaks. Safe for concurrent
// use.
type Client struct {
	kind    Kind          // immutable after New
	timeout time.Duration // immutable after New
	redact  redactor      // immutable after New
	impl    executor      // immutable after New
	// life is cancelled by Close; it cuts short Execs in flight, even
	// one still dialling.
	life      context.Context
	kill      context.CancelFunc
	closeOnce sync.Once
	closeErr  error // written once by Close
}

// New checks cfg and returns a Client; it dials lazily, on the first Exec.
func New(cfg Config) (*Client, error) {
	if cfg.Port < 1 || cfg.Port > 65535 {
		return nil, fmt.Errorf("rcon config: port %d out of range 1-65535", cfg.Port)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.QuietPeriod <= 0 {
		cfg.QuietPeriod = DefaultQuietPeriod
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	addr := "127.0.0.1:" + strconv.Itoa(cfg.Port)
	cfg.Logger = cfg.Logger.With("component", "rcon", "kind", string(cfg.Kind), "addr", addr)
	c := &Client{kind: cfg.Kind, timeout: cfg.Timeout, redact: newRedactor(cfg.Password)}
	c.life, c.kill = context.WithCancel(context.Background())
	switch cfg.Kind {
	case KindSource:
		c.impl = newSourceClient(addr, cfg)
	case KindWebRCON:
		c.impl = newWebClient(addr, cfg)
	default:
		return nil, fmt.Errorf("rcon config: unknown kind %q (want %q or %q)", cfg.Kind, KindSource, KindWebRCON)
	}
	return c, nil
}

// Kind returns the client's protocol.
func (c *Client) Kind() Kind { return c.kind }

// Exec runs command and returns the server's reply. Errors wrap one of the
// package's sentinels (see Code) and never contain the password.
func (c *Client) Exec(ctx context.Context, command string) (string, error) {
	if err := checkCommand(command); err != nil {
		return "", err
	}
	if c.life.Err() != nil {
		return "", fmt.Errorf("rcon exec: %w", ErrClosed)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	defer context.AfterFunc(c.life, cancel)()
	out, err := c.impl.exec(ctx, command)
	switch {
	case err != nil && c.life.Err() != nil:
		return "", fmt.Errorf("rcon exec: %w", ErrClosed)
	case err != nil:
		return "", c.redact.Error(err)
	}
	return out, nil
}

// Close closes the connection and fails Execs in flight with ErrClosed.
// Idempotent.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.kill()
		c.closeErr = c.impl.close()
	})
	return c.closeErr
}

func checkCommand(command string) error {
	switch {
	case strings.TrimSpace(command) == "":
		return fmt.Errorf("%w: empty", ErrBadCommand)
	case len(command) > MaxCommandBytes:
		return fmt.Errorf("%w: %d bytes, limit %d", ErrBadCommand, len(command), MaxCommandBytes)
	case strings.IndexByte(command, 0) >= 0:
		return fmt.Errorf("%w: contains a NUL byte", ErrBadCommand)
	}
	return nil
}

// ErrNotLocal: something asked an RCON client to dial an address other
// than its configured 127.0.0.1 port; nothing was dialled.
var ErrNotLocal = fmt.Errorf("%w: refusing to dial an address other than the configured 127.0.0.1 port", ErrProtocol)

// loopbackOnly returns the only dialer the RCON clients use: it dials addr
// (127.0.0.1:port, from New) and refuses any other address, whatever asks
// for it, so RCON never leaves the host.
func loopbackOnly(addr string) func(ctx context.Context, network, to string) (net.Conn, error) {
	return func(ctx context.Context, network, to string) (net.Conn, error) {
		if to != addr || (network != "tcp" && network != "tcp4") {
			return nil, fmt.Errorf("rcon dial %s %s: %w", network, to, ErrNotLocal)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, to)
	}
}
