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

// option binds one field to its flag and, where the seed has one, its
// environment variable.
type option struct {
	flag, env, usage string
	set              func(string) error
	get              func() string // the value as printed: secrets redacted
	boolean          bool          // a flag given without a value means true
}

func (c *Config) options() []option {
	return []option{
		{flag: "node-id", env: "RS_NODE_ID", usage: "world node id, 1-255 (world number = node id - 9)", set: flagval.NodeID(&c.NodeID), get: func() string { return strconv.Itoa(int(c.NodeID)) }},
		{flag: "ether-port", env: "RS_ETHER_PORT", usage: "sidecar link port on 127.0.0.1 (0: 5000 + node id)", set: flagval.Port(&c.EtherPort), get: func() string { return strconv.Itoa(c.EtherPort) }},
		{flag: "ether", usage: "sidecar: spawn, connect or off (default spawn)", set: modeSetter(&c.Ether), get: func() string { return string(c.Ether) }},
		{flag: "no-ether", usage: "no sidecar and no social features (= --ether off)", set: flagval.Bool(&c.NoEther), get: func() string { return strconv.FormatBool(c.NoEther) }, boolean: true},
		{flag: "ether-bin", usage: "ether executable to spawn (empty: next to worldsrv, else PATH)", set: flagval.String(&c.EtherBin), get: func() string { return c.EtherBin }},
		{flag: "link-token", env: "RS_LINK_TOKEN", usage: flagval.SecretUsage("sidecar link token (empty when spawning: random)", "RS_LINK_TOKEN", "link-token-file"), set: flagval.String(&c.LinkToken), get: func() string { return flagval.Shown(c.LinkToken) }},
		{flag: "link-token-file", env: "RS_LINK_TOKEN_FILE", usage: "file holding the sidecar link token", set: flagval.SecretFile(&c.LinkToken), get: flagval.NoDefault},
		{flag: "db-host", env: "RS_DB_HOST", usage: "Postgres host", set: flagval.String(&c.DBHost), get: func() string { return c.DBHost }},
		{flag: "db-port", env: "RS_DB_PORT", usage: "Postgres port", set: flagval.Port(&c.DBPort), get: func() string { return strconv.Itoa(c.DBPort) }},
		{flag: "db-name", env: "RS_DB_NAME", usage: "Postgres database", set: flagval.String(&c.DBName), get: func() string { return c.DBName }},
		{flag: "db-user", env: "RS_DB_USER", usage: "Postgres user", set: flagval.String(&c.DBUser), get: func() string { return c.DBUser }},
		{flag: "db-pass", env: "RS_DB_PASS", usage: flagval.SecretUsage("Postgres password", "RS_DB_PASS", "db-pass-file"), set: flagval.String(&c.DBPass), get: func() string { return flagval.Shown(c.DBPass) }},
		{flag: "db-pass-file", env: "RS_DB_PASS_FILE", usage: "file holding the Postgres password", set: flagval.SecretFile(&c.DBPass), get: flagval.NoDefault},
		{flag: "cluster", env: "RS_CLUSTER_HOSTS", usage: "comma-separated NATS URLs for the sidecar", set: flagval.List(&c.Cluster), get: c.ClusterRedacted},
		{flag: "rcon-password", env: "RS_RCON_PASSWORD", usage: flagval.SecretUsage("admin console password (empty: RCON off)", "RS_RCON_PASSWORD", "rcon-password-file"), set: flagval.String(&c.RCONPassword), get: func() string { return flagval.Shown(c.RCONPassword) }},
		{flag: "rcon-password-file", env: "RS_RCON_PASSWORD_FILE", usage: "file holding the admin console password", set: flagval.SecretFile(&c.RCONPassword), get: flagval.NoDefault},
		{flag: "autoregister", usage: "a new name registers on first login", set: flagval.Bool(&c.Autoregister), get: func() string { return strconv.FormatBool(c.Autoregister) }, boolean: true},
		{flag: "seed", usage: "terrain seed, decimal or 0x hex (default: from the node id)", set: seedSetter(&c.Seed, &c.SeedSet), get: c.seedShown},
		{flag: "biome", usage: "grassland, arctic, desert, marshland, tropic or 0-4 (default: from the seed)", set: biomeSetter(&c.Biome, &c.BiomeSet), get: c.biomeShown},
		{flag: "max-players", usage: "players online at most", set: flagval.Int(&c.MaxPlayers), get: func() string { return strconv.Itoa(c.MaxPlayers) }},
		{flag: "max-conns-per-ip", usage: "open game connections from one address at most", set: flagval.Int(&c.MaxConnsPerIP), get: func() string { return strconv.Itoa(c.MaxConnsPerIP) }},
		{flag: "word-filter", usage: "private-message word filter: a file (one word a line) or a comma list", set: flagval.String(&c.WordFilter), get: func() string { return c.WordFilter }},
		{flag: "game-listen", usage: "game port address (default 0.0.0.0:43584+node id)", set: flagval.String(&c.GameListen), get: func() string { return c.GameListen }},
		{flag: "http-listen", usage: "HTTP address (default 0.0.0.0:8070+node id)", set: flagval.String(&c.HTTPListen), get: func() string { return c.HTTPListen }},
		{flag: "rcon-listen", usage: "Source RCON address (default 127.0.0.1:25500+node id)", set: flagval.String(&c.RCONListen), get: func() string { return c.RCONListen }},
		{flag: "public-url", env: "RS_PUBLIC_URL", usage: "where players open the browser client, reported to the panel (default http://<http-listen>/client?world=W; an unspecified host is this machine's name)", set: flagval.String(&c.PublicURL), get: func() string { return c.PublicURL }},
		{flag: "license-id", env: "CORROSION_LICENSE_ID", usage: "license whose agent runs this world, reported in /status and to the sidecar (set by the agent)", set: flagval.String(&c.LicenseID), get: func() string { return c.LicenseID }},
		{flag: "instance-id", env: "CORROSION_INSTANCE_ID", usage: "this world's instance id on its agent (set by the agent)", set: flagval.String(&c.InstanceID), get: func() string { return c.InstanceID }},
		{flag: "log-stdout", env: "RS_LOG_STDOUT", usage: "log to stdout instead of stderr (on by itself when the corrosion agent runs the world)", set: flagval.Bool(&c.LogStdout), get: func() string { return strconv.FormatBool(c.LogStdout) }, boolean: true},
		{flag: "log-level", env: "RS_LOG_LEVEL", usage: "debug, info, warn or error", set: flagval.Level(&c.LogLevel), get: func() string { return flagval.LevelName(c.LogLevel) }},
	}
}

// Load builds the configuration in the one order (docs/development.md,
// *Configuration*): defaults, the environment (getenv), args, Resolved,
// Validate. It also validates before resolving: a conflict is then
// reported as the user's, not a default's. Help is flag.ErrHelp.
func Load(args []string, getenv func(string) string) (Config, error) {
	c := Default()
	var env []flagval.EnvVar
	for _, o := range c.options() {
		if o.env != "" {
			env = append(env, flagval.EnvVar{Name: o.env, Set: o.set})
		}
	}
	if err := flagval.Layer(env, getenv, NewFlagSet(&c, io.Discard), args, ErrConfig); err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil { // before Resolved: a conflict is the user's, not a default's
		return c, err
	}
	c = c.Resolved()
	return c, c.Validate()
}

// NewFlagSet declares c's flags on a new set writing its usage to out.
func NewFlagSet(c *Config, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("worldsrv", flag.ContinueOnError)
	fs.SetOutput(out)
	for _, o := range c.options() {
		usage := o.usage
		if o.env != "" {
			usage += " [" + o.env + "]"
		}
		// A default the usage already describes (listen addresses, seed,
		// biome) or an empty one is not printed again.
		if def := o.get(); def != "" && !strings.Contains(o.usage, "(default") {
			usage += " (default " + def + ")"
		}
		if o.boolean {
			fs.BoolFunc(o.flag, usage, o.set)
			continue
		}
		fs.Func(o.flag, usage, o.set)
	}
	return fs
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
