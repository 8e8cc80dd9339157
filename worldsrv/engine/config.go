package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	etherproto "github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/worldsrv/etherlink"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// Defaults for the zero fields of a Config.
const (
	DefaultTickInterval    = 600 * time.Millisecond
	DefaultMaxPlayers      = 2000
	DefaultMaxPerAddress   = 10
	DefaultPendingTicks    = 5
	DefaultEtherDrain      = 100
	DefaultEtherCatchUp    = time.Millisecond
	DefaultInQueue         = 64
	DefaultOutQueue        = 32
	DefaultAcceptQueue     = 1024
	DefaultMaxAuthInFlight = 512
	DefaultIdleTimeout     = 30 * time.Second
	// statsWindow is how many ticks Stats' percentiles cover.
	statsWindow = 100
)

// Config is the engine's settings; New keeps a defaulted copy, immutable
// from then on.
type Config struct {
	NodeID uint8
	// TickInterval is the time between tick starts; default 600 ms.
	TickInterval time.Duration
	// MaxPlayers bounds the players online plus the logins past their
	// account check; more get code 7. Default 2000; at most 65535 (pids).
	MaxPlayers int
	// MaxPerAddress bounds the connections from one address, counted by
	// internal/peerkey (an IPv6 host by its /64, an IPv4-mapped address as
	// IPv4); more get code 9 at their Login. Default 10; negative: no bound.
	MaxPerAddress int
	// PendingTicks is how many ticks a login waits for ether before it is
	// answered 13. Default 5.
	PendingTicks int
	// EtherDrain is the sidecar events one tick handles in one batch.
	// Default 100.
	EtherDrain int
	// EtherCatchUp: while a batch of EtherDrain events finds more queued
	// (a backlog: the friend lists and presence of a reconnect storm),
	// the phase takes another batch, until it has run this long. Default
	// 1 ms (a sidecar event takes about a microsecond); negative: one
	// batch a tick.
	EtherCatchUp time.Duration
	// InQueue bounds a client's inbound messages; OutQueue its outbound
	// chunks (one per tick); AcceptQueue the connections waiting for the
	// next tick; MaxAuthInFlight the account checks running (more logins
	// wait for a free one, in arrival order, as long as their clients do).
	InQueue, OutQueue, AcceptQueue, MaxAuthInFlight int
	// IdleTimeout disconnects a client silent this long; default 30 s.
	IdleTimeout time.Duration
	// WordFilter lists the words a private message may not carry; each
	// match (ASCII case-insensitive) is replaced by asterisks.
	WordFilter []string
	// EtherOff runs without a sidecar: no social features, logins need no
	// LoginCheck, saves are kept in memory only (lost when the world stops).
	EtherOff bool
}

// Account is what the engine keeps of a player's account once its login's
// account check passed.
type Account struct {
	User37 uint64 // the name's name37 value (proto.EncodeName)
	Name   string // the name as the player sees it
}

// ErrBadCredentials is what an Accounts' error wraps for a name or password
// that does not log in: the login is answered 3. Any other error is
// answered 13 (could not complete) and logged.
var ErrBadCredentials = errors.New("engine: invalid name or password")

// Accounts checks a login's name and password. worldsrv/world adapts the
// account store (worldsrv/account) to it, so that the tick engine does not
// link the database driver.
type Accounts interface {
	Login(ctx context.Context, name, password string) (Account, error)
}

// Link is the engine's side of the sidecar link; *etherlink.Client is one.
type Link interface {
	Send(m etherproto.Message) bool
	Drain(max int, fn func(etherlink.Event)) int
	Up() bool
}

var _ Link = (*etherlink.Client)(nil)

// Deps are the engine's collaborators.
type Deps struct {
	Logger   *slog.Logger // nil: slog.Default()
	Map      *terrain.Map
	Accounts Accounts
	Link     Link // nil exactly when Config.EtherOff
	// Clock measures the phases; nil: time.Now. Tests inject a stepping one.
	Clock func() time.Time
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.TickInterval == 0 {
		c.TickInterval = DefaultTickInterval
	}
	if c.EtherCatchUp == 0 {
		c.EtherCatchUp = DefaultEtherCatchUp
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	def(&c.MaxPlayers, DefaultMaxPlayers)
	def(&c.MaxPerAddress, DefaultMaxPerAddress)
	def(&c.PendingTicks, DefaultPendingTicks)
	def(&c.EtherDrain, DefaultEtherDrain)
	def(&c.InQueue, DefaultInQueue)
	def(&c.OutQueue, DefaultOutQueue)
	def(&c.AcceptQueue, DefaultAcceptQueue)
	def(&c.MaxAuthInFlight, DefaultMaxAuthInFlight)
	return c
}

// Validate reports the first bad field of c (after defaults), by name. It
// does not change c.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.NodeID == 0:
		return errors.New("engine config: NodeID must be 1-255")
	case c.TickInterval < 0:
		return fmt.Errorf("engine config: TickInterval %v is negative", c.TickInterval)
	case c.MaxPlayers < 0 || c.MaxPlayers > 65535:
		return fmt.Errorf("engine config: MaxPlayers %d is outside 1-65535", c.MaxPlayers)
	case c.PendingTicks < 0, c.EtherDrain < 0, c.InQueue < 0, c.OutQueue < 0,
		c.AcceptQueue < 0, c.MaxAuthInFlight < 0, c.IdleTimeout < 0:
		return errors.New("engine config: a queue bound, PendingTicks or IdleTimeout is negative")
	}
	return nil
}

func (d Deps) validate(c Config) error {
	switch {
	case d.Map == nil:
		return errors.New("engine deps: Map is nil")
	case d.Accounts == nil:
		return errors.New("engine deps: Accounts is nil")
	case d.Link == nil && !c.EtherOff:
		return errors.New("engine deps: Link is nil but ether is not off")
	case d.Link != nil && c.EtherOff:
		return errors.New("engine deps: Link is set but ether is off")
	}
	return nil
}
