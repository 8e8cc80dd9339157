// Package bot is a game client for worldsrv over TCP or WebSocket
// (docs/world-protocol.md): it logs a player in, tracks what the world
// tells it (position, nearby players, friends, ignores, private and system
// messages) in a reader goroutine, and sends the client's messages. The load generator
// (worldsrv/cmd/worldbot) and tests use it; the world itself never imports it.
package bot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// Defaults for Config's zero fields.
const (
	DefaultEvents       = 1024             // Config.Events
	DefaultKeepalive    = 10 * time.Second // Config.Keepalive
	DefaultLoginTimeout = 30 * time.Second // Config.LoginTimeout
	writeTimeout        = 10 * time.Second // a single frame write
	maxKept             = 1024             // PMs and system messages kept in State
)

// Errors Dial and the senders return.
var (
	// ErrLoginRefused: the world answered Login with a code other than
	// LoginOK. The error is a *LoginError carrying the code.
	ErrLoginRefused = errors.New("login refused")
	// ErrLoginSequence: the frames after a successful LoginResponse were
	// not in the documented order.
	ErrLoginSequence = errors.New("unexpected login sequence")
	// ErrClosed: the connection is closed (Close, Logout, or the world).
	ErrClosed = errors.New("bot connection closed")
)

// LoginError is a refused login; it matches ErrLoginRefused with errors.Is.
type LoginError struct{ Code proto.LoginCode }

func (e *LoginError) Error() string {
	return fmt.Sprintf("login refused: %s (%d)", e.Code, uint8(e.Code))
}

// Is makes a *LoginError match ErrLoginRefused.
func (e *LoginError) Is(target error) bool { return target == ErrLoginRefused }

// Config says how to log in. Addr, Name and Password are required.
type Config struct {
	Addr string // game address, host:port (with WebSocket: the world's HTTP address)
	// WebSocket connects to ws://Addr/ws (one frame per binary message)
	// instead of the game port over TCP.
	WebSocket bool
	Name      string // player name (proto.ValidName)
	Password  string
	// Events is the size of the Events channel; 0 means DefaultEvents.
	// When it is full, new events are dropped and counted (State.Dropped);
	// the tracked state is always updated.
	Events int
	// Keepalive is the interval of the automatic Keepalive; 0 means
	// DefaultKeepalive.
	Keepalive time.Duration
	// LoginTimeout bounds connecting and the whole login sequence when ctx
	// has no earlier deadline; 0 means DefaultLoginTimeout.
	LoginTimeout time.Duration
	Logger       *slog.Logger // nil: discard
}

// Client is one logged-in player. Its methods are safe for concurrent use.
//
// Teardown: Close (or the world closing the connection) closes the
// connection, which ends the reader; the keepalive loop stops on done.
type Client struct {
	cfg       Config        // immutable after Dial
	nc        net.Conn      // immutable after Dial
	log       *slog.Logger  // immutable after Dial
	events    chan Event    // sent to and closed by the reader only
	done      chan struct{} // closed when the reader has ended
	closeOnce sync.Once     // closes nc once
	writeMu   sync.Mutex    // serialises frame writes and their deadlines

	mu sync.Mutex
	// st is guarded by mu; during Dial's login, before the reader starts,
	// Dial's goroutine alone writes it without the lock.
	st      State
	readErr error // why the reader ended; guarded by mu
}

// Dial logs name in at addr over TCP with the default Config.
func Dial(ctx context.Context, addr, name, password string) (*Client, error) {
	return DialConfig(ctx, Config{Addr: addr, Name: name, Password: password})
}

// DialConfig connects, logs in and parses the whole login sequence
// (LoginResponse, MapInfo, Position, ChatSettings, FriendStatus…,
// IgnoreList, FriendListLoaded), then starts the reader and keepalive.
func DialConfig(ctx context.Context, cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	if !proto.ValidName(cfg.Name) {
		return nil, fmt.Errorf("dial %q: %w", cfg.Name, proto.ErrInvalidName)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.LoginTimeout)
	defer cancel()
	nc, err := dial(ctx, cfg)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, nc: nc, log: cfg.Logger.With("component", "bot", "name", cfg.Name),
		events: make(chan Event, cfg.Events), done: make(chan struct{})}
	r := bufio.NewReader(nc)
	if err := c.login(ctx, r); err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("login %s at %s: %w", cfg.Name, cfg.Addr, err)
	}
	go c.read(r)
	go c.keepalive()
	return c, nil
}

// dial opens the connection: TCP to the game port, or a WebSocket to
// /ws whose binary messages read and write as one stream of frames (each
// frame is written in one Write, so each is one message).
func dial(ctx context.Context, cfg Config) (net.Conn, error) {
	if !cfg.WebSocket {
		var d net.Dialer
		nc, err := d.DialContext(ctx, "tcp", cfg.Addr)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", cfg.Addr, err)
		}
		return nc, nil
	}
	u := "ws://" + cfg.Addr + "/ws"
	ws, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", u, err)
	}
	ws.SetReadLimit(proto.MaxFrame)
	return websocket.NetConn(context.Background(), ws, websocket.MessageBinary), nil
}

func (cfg Config) withDefaults() Config {
	cfg.Events = flagval.Default(cfg.Events, DefaultEvents)
	cfg.Keepalive = flagval.Default(cfg.Keepalive, DefaultKeepalive)
	cfg.LoginTimeout = flagval.Default(cfg.LoginTimeout, DefaultLoginTimeout)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg
}

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Events delivers what happened, in order; it is closed when the
// connection ends. Drop policy: when the channel is full the newest event
// is dropped and counted in State().Dropped; State is updated regardless.
func (c *Client) Events() <-chan Event { return c.events }

// Name is the player's name.
func (c *Client) Name() string { return c.cfg.Name }

// Err is why the connection ended (nil while it is open; ErrClosed after
// Close or a clean end).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

// Close closes the connection without Logout (the world still saves the
// player) and waits for the reader to end. Idempotent.
func (c *Client) Close() error {
	c.closeOnce.Do(func() { _ = c.nc.Close() })
	<-c.done
	return nil
}

// Logout sends Logout and waits until the world closes the connection (it
// sends LoggedOut first) or ctx ends; then it closes.
func (c *Client) Logout(ctx context.Context) error {
	err := c.send(proto.Logout{})
	if err == nil {
		select {
		case <-c.done:
		case <-ctx.Done():
			err = fmt.Errorf("logout %s: %w", c.cfg.Name, ctx.Err())
		}
	}
	_ = c.Close()
	return err
}
