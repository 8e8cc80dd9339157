// Package swarm is the load generator behind worldbot: it logs many bots
// (worldsrv/bot) into one or more worlds, builds a friend graph, walks them
// around, sends stamped PMs at a rate and reports logins per second and
// login, PM and movement figures. It is bounded in bots and time.
package swarm

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// Limits Validate enforces.
const (
	MaxBots          = 10000
	MaxDuration      = 24 * time.Hour
	DefaultInFlight  = 64 // logins in flight at once
	DefaultWalkReach = 20 // Config.WalkReach
)

// Config is one run. Zero optional fields take defaults.
type Config struct {
	Addrs []string // game addresses; bot i logs in at Addrs[i % len]
	// WebSocket: Addrs are the worlds' HTTP addresses and the bots connect
	// to /ws instead of the game port.
	WebSocket bool
	Bots      int
	Prefix    string // bot i is named Prefix + i
	Password  string
	Friends   int // each bot adds this many others (the next ones by number)
	// FriendsOnline, when above 0, bounds a wait after the friend
	// requests, before LoggedIn and the steady phase: until every bot sees
	// each friend that logged in online at that friend's world, as a
	// player would before messaging it. A friend's status reaches the
	// sender's world a tick or two after its FriendAdd, and the world
	// answers a PM sent before that "That player is currently offline.".
	// Report.FriendsNotOnline counts the friend rows still not online when
	// the wait ended. 0: no wait (a world without ether never shows a
	// friend online).
	FriendsOnline time.Duration
	Walk          bool // walk every bot to random targets
	// WalkReach bounds a walk's target: a random tile within this many
	// tiles of where the bot is. 0: DefaultWalkReach.
	WalkReach int
	PMRate    float64 // PMs per second, all bots together; 0 none
	// Duration is the steady phase, after every login has finished or
	// failed; the run ends earlier when the context is cancelled.
	Duration time.Duration
	Ramp     float64 // logins started per second; 0: as fast as InFlight allows
	InFlight int     // logins in flight at once; 0: DefaultInFlight
	// LoginTimeout bounds each bot's login; 0: bot.DefaultLoginTimeout.
	LoginTimeout time.Duration
	Seed         int64 // for targets and PM pairs; 0: from the clock
	Logger       *slog.Logger
	// LoggedIn, when set, is called once with the bots logged in, after
	// the logins and the friend requests and before the steady phase (a
	// harness measuring the steady phase starts there).
	LoggedIn func(bots int)
}

// Validate names the first bad field. It does not change cfg.
func (cfg Config) Validate() error {
	switch {
	case len(cfg.Addrs) == 0:
		return errors.New("addr: at least one world address is required")
	case cfg.Bots < 1 || cfg.Bots > MaxBots:
		return fmt.Errorf("bots: %d, want 1–%d", cfg.Bots, MaxBots)
	case !proto.ValidName(cfg.Prefix+"0") || !proto.ValidName(cfg.Prefix+strconv.Itoa(cfg.Bots-1)):
		return fmt.Errorf("prefix: %q+%d is not a valid player name (a–z, 0–9, at most %d characters)",
			cfg.Prefix, cfg.Bots-1, proto.MaxNameLen)
	case cfg.Password == "":
		return errors.New("password: must not be empty")
	case cfg.Friends < 0 || cfg.Friends >= cfg.Bots:
		return fmt.Errorf("friends: %d, want 0–%d (fewer than bots)", cfg.Friends, cfg.Bots-1)
	case cfg.FriendsOnline < 0 || cfg.FriendsOnline > MaxDuration:
		return fmt.Errorf("friends-online: %v, want 0–%v", cfg.FriendsOnline, MaxDuration)
	case cfg.PMRate < 0:
		return fmt.Errorf("pm-rate: %g, want ≥ 0", cfg.PMRate)
	case cfg.Duration <= 0 || cfg.Duration > MaxDuration:
		return fmt.Errorf("duration: %v, want more than 0 and at most %v", cfg.Duration, MaxDuration)
	case cfg.Ramp < 0:
		return fmt.Errorf("ramp: %g, want ≥ 0", cfg.Ramp)
	case cfg.WalkReach < 0:
		return fmt.Errorf("walk-reach: %d, want ≥ 0", cfg.WalkReach)
	case cfg.LoginTimeout < 0:
		return fmt.Errorf("login-timeout: %v, want ≥ 0", cfg.LoginTimeout)
	case cfg.InFlight < 0:
		return fmt.Errorf("in-flight: %d, want ≥ 0", cfg.InFlight)
	}
	return nil
}

func (cfg Config) withDefaults() Config {
	if cfg.InFlight == 0 {
		cfg.InFlight = DefaultInFlight
	}
	if cfg.WalkReach == 0 {
		cfg.WalkReach = DefaultWalkReach
	}
	if cfg.Seed == 0 {
		cfg.Seed = time.Now().UnixNano()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg
}

// name is bot i's player name.
func (cfg Config) name(i int) string { return cfg.Prefix + strconv.Itoa(i) }
