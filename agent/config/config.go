// Package config is the corrosion-agent configuration: the TOML file of
// docs/wire-protocol.md, its defaults, ${VAR} expansion for secrets, and
// validation that names the bad field and value.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natsconn"
)

// Config is the whole agent configuration. It is immutable after Load.
type Config struct {
	Agent     Agent      `toml:"agent"`
	Probes    []Probe    `toml:"probe"`
	Instances []Instance `toml:"instance"`
}

// Agent is the [agent] table.
type Agent struct {
	LicenseID        string `toml:"license_id"`
	NATSURL          string `toml:"nats_url"`   // comma-separated list
	NATSCreds        string `toml:"nats_creds"` // optional .creds file
	HeartbeatSeconds int    `toml:"heartbeat_seconds"`
	StateDir         string `toml:"state_dir"`
	LogLevel         string `toml:"log_level"` // debug | info | warn | error
	// MetricsListen is the host:port of the Prometheus /metrics endpoint;
	// empty (the default): no endpoint.
	MetricsListen string `toml:"metrics_listen"`

	// Other ways to authenticate to NATS than nats_creds or credentials in
	// nats_url (at most one way is set): user and password, a token, an
	// nkey seed file. NATSCAFile adds a CA for the servers' TLS
	// certificates.
	NATSUser         string `toml:"nats_user"`
	NATSPassword     string `toml:"nats_password"` // secret: never shown
	NATSToken        string `toml:"nats_token"`    // secret: never shown
	NATSNKeySeedFile string `toml:"nats_nkey_seed_file"`
	NATSCAFile       string `toml:"nats_ca_file"`

	// Console limits (Wings' defaults): at most ConsoleLineLimit lines per
	// ConsoleWindow reach NATS; the rest are dropped with one notice.
	ConsoleLineLimit int      `toml:"console_line_limit"`
	ConsoleWindow    Duration `toml:"console_window"`
	ConsoleRingLines int      `toml:"console_ring_lines"` // backlog kept for `logs`

	// Crash policy: backoff BackoffInitial doubling to BackoffMax, reset
	// after HealthyAfter of running; CrashLoopCount crashes within
	// CrashLoopWindow stop the retries.
	BackoffInitial  Duration `toml:"restart_backoff_initial"`
	BackoffMax      Duration `toml:"restart_backoff_max"`
	HealthyAfter    Duration `toml:"restart_healthy_after"`
	CrashLoopCount  int      `toml:"crash_loop_count"`
	CrashLoopWindow Duration `toml:"crash_loop_window"`

	// AllowRoot lets an agent running as root (effective uid 0) start game
	// servers, which then run as root too. Default false: such a start is
	// refused (RootRefusal).
	AllowRoot bool `toml:"allow_root"`

	// GamesDieWithAgent binds the games to the agent: they are killed
	// when the agent ends in any way (kill -9 included on Linux and
	// Windows), instead of outliving it. For `corrosion-panel dev`, whose
	// demo fleet must die with it; default false (games survive an agent
	// restart or upgrade).
	GamesDieWithAgent bool `toml:"games_die_with_agent"`

	// Provisioning turns on the host funcs that create, update and delete
	// instances from the panel (templates, instance_create, …); default
	// false: they are refused with provisioning_disabled.
	Provisioning bool `toml:"provisioning"`
	// InstancesRoot is the directory under which every created instance
	// has its root (default DefaultInstancesRoot).
	InstancesRoot string `toml:"instances_root"`
	// AllowedPrograms are the programs outside an instance's root that a
	// created instance may run (absolute paths, or names resolved on PATH):
	// e.g. wine, java, /usr/games/minetestserver.
	AllowedPrograms []string `toml:"allowed_programs"`

	// PublicAddress is where players reach this host: an IP address or a
	// DNS name, without a port. Reported in the heartbeat; the panel's
	// inbound reachability probe connects there and nowhere else. Empty
	// (the default): the panel probes nothing.
	PublicAddress string `toml:"public_address"`

	// SteamCMD is the steamcmd program the install tasks run: an absolute
	// path or a command name on PATH; "" looks for steamcmd, then
	// steamcmd.sh, on PATH (see SteamCMDProgram).
	SteamCMD string `toml:"steamcmd"`
	// SteamCMDHome is the directory holding steamcmd's appcache/ when it
	// is not the program's own directory (Debian's /usr/games/steamcmd
	// wrapper keeps it in the user's home); "" is the program's directory.
	SteamCMDHome string `toml:"steamcmd_home"`
}

// ErrRunAsRoot: the agent runs as root and allow_root is not set, so it
// refuses to start game servers (they would run as root).
var ErrRunAsRoot = errors.New("refusing to run game servers as root: the agent runs as root and agent.allow_root is false " +
	"(run the agent as an unprivileged user, as `corrosion-agent install` sets up, or set allow_root = true in [agent])")

// RootRefusal is ErrRunAsRoot when an agent with effective uid euid may not
// start game servers (euid 0 without allow_root), else nil. On Windows
// os.Geteuid is -1, so nothing is refused.
func (a *Agent) RootRefusal(euid int) error {
	if euid == 0 && !a.AllowRoot {
		return ErrRunAsRoot
	}
	return nil
}

// NATSURLs returns the entries of nats_url, split on commas and trimmed;
// empty entries are dropped.
func (c *Config) NATSURLs() []string { return natsconn.URLs(c.Agent.NATSURL) }

// Instance returns the instance with the given id, or nil.
func (c *Config) Instance(id string) *Instance {
	for i := range c.Instances {
		if c.Instances[i].ID == id {
			return &c.Instances[i]
		}
	}
	return nil
}

// HeartbeatInterval is heartbeat_seconds as a duration.
func (a *Agent) HeartbeatInterval() time.Duration {
	return time.Duration(a.HeartbeatSeconds) * time.Second
}

// Log levels accepted by log_level.
var LogLevels = []string{"debug", "info", "warn", "error"}

// ParseLogLevel is the one reading of log_level: one of LogLevels, as a
// slog level. Validate reports its error; SlogLevel uses its result.
func ParseLogLevel(s string) (slog.Level, error) {
	switch s {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return slog.LevelInfo, fmt.Errorf("%q is not a log level (want %s)", s, strings.Join(LogLevels, ", "))
}

// SlogLevel is log_level as a slog level; an unknown level (which Validate
// rejects) is info.
func (a *Agent) SlogLevel() slog.Level {
	l, _ := ParseLogLevel(a.LogLevel)
	return l
}

// Probe is one [[probe]] target.
type Probe struct {
	Name string `toml:"name"`
	Host string `toml:"host"`
	Port int    `toml:"port"`
}

// Restart policies.
const (
	RestartNever   = "never"
	RestartOnCrash = "on-crash"
	RestartAlways  = "always"
)

// What ready_timeout_action does when readiness is not seen in time.
const (
	ReadyTimeoutRunning = "running" // report the instance running, with a notice
	ReadyTimeoutFail    = "fail"    // a failed start: kill it, crash policy applies
)

// StopSignals are the signals a graceful stop may send (Unix; Windows
// sends CTRL_BREAK): Instance.StopSignal, and a template's stop of kind
// signal (agent/template).
var StopSignals = []string{"SIGINT", "SIGTERM", "SIGQUIT", "SIGHUP", "SIGUSR1", "SIGUSR2"}

// Games the agent knows.
var Games = []string{"rust", "conan", "soulmask", "worldsrv", "ether", "generic"}

// Instance is one [[instance]] table.
type Instance struct {
	ID                 string            `toml:"id"`
	Game               string            `toml:"game"`
	Label              string            `toml:"label"`
	Root               string            `toml:"root"`
	Exec               string            `toml:"exec"` // empty: unmanaged
	Args               []string          `toml:"args"`
	Env                map[string]string `toml:"env"`
	StopCommand        string            `toml:"stop_command"`
	StopTimeoutSeconds int               `toml:"stop_timeout_seconds"`
	ReadyPattern       string            `toml:"ready_pattern"`
	Restart            string            `toml:"restart"`
	Autostart          bool              `toml:"autostart"`
	DependsOn          []string          `toml:"depends_on"`
	RCON               *RCON             `toml:"rcon"`
	Files              Files             `toml:"files"`

	// Readiness budget: after ReadyTimeoutSeconds without a ready_pattern
	// match the instance is reported running, or with ReadyTimeoutAction
	// "fail" its start fails (the restart policy applies).
	ReadyTimeoutSeconds int    `toml:"ready_timeout_seconds"`
	ReadyTimeoutAction  string `toml:"ready_timeout_action"` // running | fail
	// InheritEnv gives the game the agent's whole environment instead of
	// the small base set (unsafe for third-party games: it carries the
	// agent's secrets).
	InheritEnv bool `toml:"inherit_env"`
	// Ports are the ports the game listens on ([[instance.port]]), as a
	// template declares them: reported in the heartbeat, the only ones the
	// panel's inbound probe may try. A udp port named "query"
	// (wire.QueryPortName) is a Steam game's query port (A2S_INFO).
	Ports []Port `toml:"port"`

	// StopSignal is the signal of a graceful stop without stop_command
	// (Unix; "" is SIGTERM, Windows always sends CTRL_BREAK). Not a key of
	// agent.toml: an instance created from a template whose stop is a
	// signal (SIGINT for Valheim) sets it, from the template's list.
	StopSignal string `toml:"-"`
	// StopRCON is a command sent over [instance.rcon] for a graceful stop
	// (Rust's "quit"); when it cannot be sent, the stop signal follows.
	// Not a key of agent.toml: set from a template's stop of kind rcon.
	StopRCON string `toml:"-"`
}

// Port is one [[instance.port]] table.
type Port struct {
	Name     string `toml:"name"`     // [a-z][a-z0-9_]{0,31}, unique in the instance
	Protocol string `toml:"protocol"` // tcp | udp
	Port     int    `toml:"port"`     // 1-65535
}

// PortInfos is the instance's ports as the heartbeat reports them.
func (i *Instance) PortInfos() []wire.BoundPortInfo {
	if len(i.Ports) == 0 {
		return nil
	}
	out := make([]wire.BoundPortInfo, len(i.Ports))
	for j, p := range i.Ports {
		out[j] = wire.BoundPortInfo{Name: p.Name, Protocol: p.Protocol, Port: p.Port}
	}
	return out
}

// Managed reports whether the agent runs this instance's process.
func (i *Instance) Managed() bool { return i.Exec != "" }

// StopTimeout is the graceful stop budget.
func (i *Instance) StopTimeout() time.Duration {
	return time.Duration(i.StopTimeoutSeconds) * time.Second
}

// RCON is the [instance.rcon] table.
type RCON struct {
	Kind     string `toml:"kind"` // source | webrcon; inferred from game when empty
	Port     int    `toml:"port"`
	Password string `toml:"password"`
}

// RCON kinds.
const (
	RCONSource  = "source"
	RCONWebRCON = "webrcon"
)

// InferRCONKind is the RCON protocol a game speaks when [instance.rcon]
// leaves kind empty: webrcon for rust, source for conan, soulmask and
// worldsrv; "" (must be given) for the others. It is the only place this
// rule is written: the defaults fill RCON.Kind with it, so a loaded config
// always names its kind and the agent passes it to agent/rcon as is.
func InferRCONKind(game string) string {
	switch game {
	case "rust":
		return RCONWebRCON
	case "conan", "soulmask", "worldsrv":
		return RCONSource
	}
	return ""
}

// Files is the [instance.files] table.
type Files struct {
	// Deny lists gitignore-style patterns the file manager refuses for
	// every operation.
	Deny []string `toml:"deny"`
	// AllowHardlinks lets the file manager read, copy and archive regular
	// files with more than one hard link; such a link may name a file
	// outside the instance root. Default false. fm_chmod of such files is
	// refused either way.
	AllowHardlinks bool `toml:"allow_hardlinks"`
}

// Duration is a time.Duration written as a Go duration string ("1.5s").
type Duration struct{ time.Duration }

// UnmarshalText parses a duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// MarshalText renders the duration.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.Duration.String()), nil }
