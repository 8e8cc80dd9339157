package config

import (
	"errors"
	"flag"
	"io"
	"strconv"
	"strings"

	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// options are c's settings: flag, variable (where the seed has one), usage.
func (c *Config) options() []flagval.Var {
	vars := append(flagval.NodeVars(&c.NodeID, &c.EtherPort), []flagval.Var{
		{Flag: "ether", Usage: "sidecar: spawn, connect or off (default spawn)", Set: modeSetter(&c.Ether), Get: func() string { return string(c.Ether) }},
		{Flag: "no-ether", Usage: "no sidecar and no social features (= --ether off)", Set: flagval.Bool(&c.NoEther), Get: func() string { return strconv.FormatBool(c.NoEther) }, Bool: true},
		{Flag: "ether-bin", Usage: "ether executable to spawn (empty: next to worldsrv, else PATH)", Set: flagval.String(&c.EtherBin), Get: func() string { return c.EtherBin }},
		{Flag: "link-token", Env: "RS_LINK_TOKEN", Usage: flagval.SecretUsage("sidecar link token (empty when spawning: random)", "RS_LINK_TOKEN", "link-token-file"), Set: flagval.String(&c.LinkToken), Get: func() string { return flagval.Shown(c.LinkToken) }},
		{Flag: "link-token-file", Env: "RS_LINK_TOKEN_FILE", Usage: "file holding the sidecar link token", Set: flagval.SecretFile(&c.LinkToken), Get: flagval.NoDefault},
	}...)
	vars = append(vars, c.DB.Vars()...)
	return append(vars, []flagval.Var{
		{Flag: "cluster", Env: "RS_CLUSTER_HOSTS", Usage: "comma-separated NATS URLs for the sidecar", Set: flagval.List(&c.Cluster), Get: c.ClusterRedacted},
		{Flag: "rcon-password", Env: "RS_RCON_PASSWORD", Usage: flagval.SecretUsage("admin console password (empty: RCON off)", "RS_RCON_PASSWORD", "rcon-password-file"), Set: flagval.String(&c.RCONPassword), Get: func() string { return flagval.Shown(c.RCONPassword) }},
		{Flag: "rcon-password-file", Env: "RS_RCON_PASSWORD_FILE", Usage: "file holding the admin console password", Set: flagval.SecretFile(&c.RCONPassword), Get: flagval.NoDefault},
		{Flag: "autoregister", Usage: "a new name registers on first login", Set: flagval.Bool(&c.Autoregister), Get: func() string { return strconv.FormatBool(c.Autoregister) }, Bool: true},
		{Flag: "seed", Usage: "terrain seed, decimal or 0x hex (default: from the node id)", Set: seedSetter(&c.Seed, &c.SeedSet), Get: c.seedShown},
		{Flag: "biome", Usage: "grassland, arctic, desert, marshland, tropic or 0-4 (default: from the seed)", Set: biomeSetter(&c.Biome, &c.BiomeSet), Get: c.biomeShown},
		{Flag: "max-players", Usage: "players online at most", Set: flagval.Int(&c.MaxPlayers), Get: func() string { return strconv.Itoa(c.MaxPlayers) }},
		{Flag: "max-conns-per-ip", Usage: "open game connections from one address at most", Set: flagval.Int(&c.MaxConnsPerIP), Get: func() string { return strconv.Itoa(c.MaxConnsPerIP) }},
		{Flag: "word-filter", Usage: "private-message word filter: a file (one word a line) or a comma list", Set: flagval.String(&c.WordFilter), Get: func() string { return c.WordFilter }},
		{Flag: "game-listen", Usage: "game port address (default 0.0.0.0:43584+node id)", Set: flagval.String(&c.GameListen), Get: func() string { return c.GameListen }},
		{Flag: "http-listen", Usage: "HTTP address (default 0.0.0.0:8070+node id)", Set: flagval.String(&c.HTTPListen), Get: func() string { return c.HTTPListen }},
		{Flag: "rcon-listen", Usage: "Source RCON address (default 127.0.0.1:25500+node id)", Set: flagval.String(&c.RCONListen), Get: func() string { return c.RCONListen }},
		{Flag: "public-url", Env: "RS_PUBLIC_URL", Usage: "where players open the browser client, reported to the panel (default http://<http-listen>/client?world=W; an unspecified host is this machine's name)", Set: flagval.String(&c.PublicURL), Get: func() string { return c.PublicURL }},
		{Flag: "license-id", Env: "CORROSION_LICENSE_ID", Usage: "license whose agent runs this world, reported in /status and to the sidecar (set by the agent)", Set: flagval.String(&c.LicenseID), Get: func() string { return c.LicenseID }},
		{Flag: "instance-id", Env: "CORROSION_INSTANCE_ID", Usage: "this world's instance id on its agent (set by the agent)", Set: flagval.String(&c.InstanceID), Get: func() string { return c.InstanceID }},
		{Flag: "log-stdout", Env: "RS_LOG_STDOUT", Usage: "log to stdout instead of stderr (on by itself when the corrosion agent runs the world)", Set: flagval.Bool(&c.LogStdout), Get: func() string { return strconv.FormatBool(c.LogStdout) }, Bool: true},
		{Flag: "log-level", Env: "RS_LOG_LEVEL", Usage: "debug, info, warn or error", Set: flagval.Level(&c.LogLevel), Get: func() string { return flagval.LevelName(c.LogLevel) }},
	}...)
}

// Load builds the configuration in the one order (docs/development.md,
// *Configuration*): defaults, the environment (getenv), args, Resolved,
// Validate. It also validates before resolving: a conflict is then
// reported as the user's, not a default's. Help is flag.ErrHelp.
func Load(args []string, getenv func(string) string) (Config, error) {
	c := Default()
	if err := flagval.Load("worldsrv", c.options(), getenv, args, ErrConfig); err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil { // before Resolved: a conflict is the user's, not a default's
		return c, err
	}
	c = c.Resolved()
	return c, c.Validate()
}

// NewFlagSet declares c's flags on a new set writing its usage to out. A
// default the usage already describes (listen addresses, seed, biome) or an
// empty one is not printed again.
func NewFlagSet(c *Config, out io.Writer) *flag.FlagSet {
	return flagval.FlagSet("worldsrv", c.options(), out)
}

func (c *Config) seedShown() string {
	if !c.SeedSet {
		return "from node id"
	}
	return strconv.FormatUint(c.Seed, 10)
}

func (c *Config) biomeShown() string {
	if !c.BiomeSet {
		return "from seed"
	}
	return c.Biome.String()
}

func modeSetter(p *EtherMode) func(string) error {
	return func(s string) error {
		m := EtherMode(strings.ToLower(strings.TrimSpace(s)))
		if !m.Valid() {
			return errors.New("not spawn, connect or off")
		}
		*p = m
		return nil
	}
}

// seedSetter reads a u64 in decimal or, with a 0x prefix, hex.
func seedSetter(p *uint64, set *bool) func(string) error {
	return func(s string) error {
		s = strings.TrimSpace(s)
		base, digits := 10, s
		if rest, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
			base, digits = 16, rest
		}
		v, err := strconv.ParseUint(digits, base, 64)
		if err != nil || strings.HasPrefix(digits, "+") {
			return errors.New("not an unsigned 64-bit number (decimal or 0x hex)")
		}
		*p, *set = v, true
		return nil
	}
}

func biomeSetter(p *terrain.Biome, set *bool) func(string) error {
	return func(s string) error {
		b, err := terrain.ParseBiome(s)
		if err != nil {
			return errors.New("not grassland, arctic, desert, marshland, tropic or 0-4")
		}
		*p, *set = b, true
		return nil
	}
}
