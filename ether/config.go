package ether

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/corrosion/corrosion/ether/health"
	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/internal/natsconn"
	"github.com/corrosion/corrosion/internal/redact"
)

// Config is the whole configuration of one ether node. Every field has an
// environment variable and a flag (flags win over the environment, which
// wins over the defaults); the seed's RS_* variables keep their meaning,
// with RS_CLUSTER_HOSTS naming NATS servers.
type Config struct {
	NodeID        uint8         // RS_NODE_ID, --node-id: the world's node id (default 10)
	EtherPort     int           // RS_ETHER_PORT, --ether-port: world link port on 127.0.0.1 (default 5000 + node id)
	DB            flagval.DB    // RS_DB_*, --db-*: the seed's database settings (default flagval.DefaultDB)
	ClusterHosts  []string      // RS_CLUSTER_HOSTS, --cluster-hosts: NATS URLs (default nats://127.0.0.1:4222)
	ClusterName   string        // RS_CLUSTER_NAME, --cluster-name: subject prefix (default ether)
	MetricsListen string        // RS_METRICS_LISTEN, --metrics-listen: /metrics and /health address (default off)
	LeaseTTL      time.Duration // RS_LEASE_TTL, --lease-ttl: login lock lifetime (default 10s)
	Heartbeat     time.Duration // RS_HEARTBEAT, --heartbeat: node heartbeat period (default 1s)
	NodeTimeout   time.Duration // RS_NODE_TIMEOUT, --node-timeout: silent peer is down after (default 3s)
	HealthEvery   time.Duration // RS_HEALTH_INTERVAL, --health-interval: health snapshot period (default 5s)
	LinkGrace     time.Duration // RS_LINK_GRACE, --link-grace: sessions of a lost world wait this long for a resync (default 10s)
	LinkToken     string        // RS_LINK_TOKEN, --link-token, RS_LINK_TOKEN_FILE, --link-token-file: a world must send it first (LinkAuth); empty: none (default). Never printed
	LockReplicas  int           // RS_LOCK_REPLICAS, --lock-replicas: login lock bucket replicas, 1-5 (default 0: the NATS cluster's size up to 3)
	LogLevel      slog.Level    // RS_LOG_LEVEL, --log-level: debug, info, warn, error (default info); parsed when set
	LogStdout     bool          // RS_LOG_STDOUT, --log-stdout: log to stdout (also when the agent runs ether: internal/logdest)
	LicenseID     string        // CORROSION_LICENSE_ID, --license-id: the license whose agent runs this node (set by the agent); empty: not run by an agent
	InstanceID    string        // CORROSION_INSTANCE_ID, --instance-id: this node's instance id on that agent (set by the agent)
}

// ErrConfig: an invalid configuration; the message names the field.
var ErrConfig = errors.New("invalid configuration")

// DefaultConfig is the configuration with nothing set.
func DefaultConfig() Config {
	return Config{
		NodeID: 10, DB: flagval.DefaultDB(),
		ClusterHosts: []string{"nats://127.0.0.1:4222"}, ClusterName: "ether",
		LeaseTTL: 10 * time.Second, Heartbeat: time.Second, NodeTimeout: 3 * time.Second,
		HealthEvery: 5 * time.Second, LinkGrace: 10 * time.Second, LogLevel: slog.LevelInfo,
	}
}

var clusterNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Resolved is c with what is left to a default filled in, the one place
// that does so: EtherPort 0 becomes 5000 + node id, a cluster host without
// a scheme gets nats:// (host:port, as nats.go also accepts). LoadConfig,
// New and Migrate resolve before they validate; c itself is not changed.
func (c Config) Resolved() Config {
	c.EtherPort = c.Port()
	hosts := make([]string, len(c.ClusterHosts))
	for i, h := range c.ClusterHosts {
		hosts[i] = natsconn.WithScheme(h)
	}
	c.ClusterHosts = hosts
	return c
}

// Validate names the first bad field. It never changes c: it checks the
// hosts as Resolved would have them, and an EtherPort of 0 is fine (5000 +
// node id).
func (c Config) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrConfig, field, fmt.Sprintf(format, args...))
	}
	switch {
	case c.NodeID == 0:
		return bad("node id (RS_NODE_ID)", "must be 1-255")
	case c.EtherPort < 0 || c.EtherPort > 65535:
		return bad("ether port (RS_ETHER_PORT)", "%d is not a TCP port", c.EtherPort)
	case c.DB.Check() != nil:
		return fmt.Errorf("%w: %v", ErrConfig, c.DB.Check())
	case len(c.ClusterHosts) == 0:
		return bad("cluster hosts (RS_CLUSTER_HOSTS)", "no NATS URL")
	case !clusterNameRE.MatchString(c.ClusterName):
		return bad("cluster name (RS_CLUSTER_NAME)", "%q must be 1-64 of [A-Za-z0-9_-]", c.ClusterName)
	case c.LeaseTTL <= 0 || c.Heartbeat <= 0 || c.HealthEvery <= 0 || c.LinkGrace <= 0:
		return bad("durations", "lease ttl, heartbeat, health interval and link grace must be positive")
	case c.NodeTimeout <= c.Heartbeat:
		return bad("node timeout (RS_NODE_TIMEOUT)", "%v must exceed the heartbeat %v", c.NodeTimeout, c.Heartbeat)
	}
	for _, h := range c.ClusterHosts {
		h = natsconn.WithScheme(h)
		if natsconn.CheckURL(h) != nil {
			return bad("cluster hosts (RS_CLUSTER_HOSTS)", "%q is not a URL like nats://host:4222", redact.URL(h))
		}
	}
	if c.MetricsListen != "" {
		if _, _, err := net.SplitHostPort(c.MetricsListen); err != nil {
			return bad("metrics listen (RS_METRICS_LISTEN)", "%q is not host:port", c.MetricsListen)
		}
	}
	if len(c.LinkToken) > proto.MaxPayload-1 {
		return bad("link token (RS_LINK_TOKEN)", "%d bytes; a frame carries at most %d", len(c.LinkToken), proto.MaxPayload-1)
	}
	if c.LockReplicas < 0 || c.LockReplicas > 5 {
		return bad("lock replicas (RS_LOCK_REPLICAS)", "%d must be 1-5, or 0 for the NATS cluster's size up to 3", c.LockReplicas)
	}
	if a := c.Agent(); a != nil {
		if err := a.Check(); err != nil {
			return bad("agent (CORROSION_LICENSE_ID, CORROSION_INSTANCE_ID)", "%v; the agent sets both", err)
		}
	} else if c.InstanceID != "" {
		return bad("license id (CORROSION_LICENSE_ID)", "empty while the instance id is %q; the agent sets both", c.InstanceID)
	}
	if _, err := flagval.ParseLevel(flagval.LevelName(c.LogLevel)); err != nil {
		return bad("log level (RS_LOG_LEVEL)", "%v", err)
	}
	return nil
}

// Port is the world link port: EtherPort, or 5000 + node id.
func (c *Config) Port() int {
	if c.EtherPort != 0 {
		return c.EtherPort
	}
	return 5000 + int(c.NodeID)
}

// Agent is who runs the node as its health reports it; nil when no
// license is set (not run by a Corrosion agent).
func (c *Config) Agent() *health.Agent {
	if c.LicenseID == "" {
		return nil
	}
	return &health.Agent{License: c.LicenseID, Instance: c.InstanceID}
}

// ListenAddr is where the world link listens: always loopback.
func (c *Config) ListenAddr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Port())) }

func (c *Config) vars() []flagval.Var {
	vars := []flagval.Var{
		{Flag: "node-id", Env: "RS_NODE_ID", Usage: "world node id, 1-255", Set: flagval.NodeID(&c.NodeID), Get: func() string { return strconv.Itoa(int(c.NodeID)) }},
		{Flag: "ether-port", Env: "RS_ETHER_PORT", Usage: "world link port on 127.0.0.1 (0: 5000 + node id)", Set: flagval.Int(&c.EtherPort), Get: func() string { return strconv.Itoa(c.EtherPort) }},
	}
	vars = append(vars, c.DB.Vars()...)
	return append(vars, []flagval.Var{
		{Flag: "cluster-hosts", Env: "RS_CLUSTER_HOSTS", Usage: "comma-separated NATS URLs", Set: flagval.List(&c.ClusterHosts), Get: c.ClusterHostsRedacted},
		{Flag: "cluster-name", Env: "RS_CLUSTER_NAME", Usage: "cluster name: prefix of every NATS subject", Set: flagval.String(&c.ClusterName), Get: func() string { return c.ClusterName }},
		{Flag: "metrics-listen", Env: "RS_METRICS_LISTEN", Usage: "address for /metrics and /health (empty: off)", Set: flagval.String(&c.MetricsListen), Get: func() string { return c.MetricsListen }},
		{Flag: "lease-ttl", Env: "RS_LEASE_TTL", Usage: "login lock lifetime", Set: flagval.Duration(&c.LeaseTTL), Get: func() string { return c.LeaseTTL.String() }},
		{Flag: "heartbeat", Env: "RS_HEARTBEAT", Usage: "node heartbeat period", Set: flagval.Duration(&c.Heartbeat), Get: func() string { return c.Heartbeat.String() }},
		{Flag: "node-timeout", Env: "RS_NODE_TIMEOUT", Usage: "a peer silent this long is down", Set: flagval.Duration(&c.NodeTimeout), Get: func() string { return c.NodeTimeout.String() }},
		{Flag: "health-interval", Env: "RS_HEALTH_INTERVAL", Usage: "health snapshot period", Set: flagval.Duration(&c.HealthEvery), Get: func() string { return c.HealthEvery.String() }},
		{Flag: "link-grace", Env: "RS_LINK_GRACE", Usage: "how long sessions of a lost world link wait for a resync", Set: flagval.Duration(&c.LinkGrace), Get: func() string { return c.LinkGrace.String() }},
		{Flag: "link-token", Env: "RS_LINK_TOKEN", Usage: flagval.SecretUsage("token a world must present first (LinkAuth); empty: none", "RS_LINK_TOKEN", "link-token-file"), Set: flagval.String(&c.LinkToken), Get: func() string { return flagval.Shown(c.LinkToken) }},
		{Flag: "link-token-file", Env: "RS_LINK_TOKEN_FILE", Usage: "file holding the link token", Set: flagval.SecretFile(&c.LinkToken), Get: flagval.NoDefault},
		{Flag: "lock-replicas", Env: "RS_LOCK_REPLICAS", Usage: "login lock bucket replicas, 1-5 (0: the NATS cluster's size up to 3)", Set: flagval.Int(&c.LockReplicas), Get: func() string { return strconv.Itoa(c.LockReplicas) }},
		{Flag: "log-stdout", Env: "RS_LOG_STDOUT", Usage: "log to stdout instead of stderr (on by itself when the corrosion agent runs ether)", Set: flagval.Bool(&c.LogStdout), Get: func() string { return strconv.FormatBool(c.LogStdout) }},
		{Flag: "log-level", Env: "RS_LOG_LEVEL", Usage: "debug, info, warn or error", Set: flagval.Level(&c.LogLevel), Get: func() string { return flagval.LevelName(c.LogLevel) }},
		{Flag: "license-id", Env: "CORROSION_LICENSE_ID", Usage: "license whose agent runs this node, reported in health (set by the agent)", Set: flagval.String(&c.LicenseID), Get: func() string { return c.LicenseID }},
		{Flag: "instance-id", Env: "CORROSION_INSTANCE_ID", Usage: "this node's instance id on its agent, reported in health (set by the agent)", Set: flagval.String(&c.InstanceID), Get: func() string { return c.InstanceID }},
	}...)
}

// ClusterHostsRedacted is RS_CLUSTER_HOSTS as shown in messages and logs:
// the URLs' credentials hidden (internal/redact).
func (c *Config) ClusterHostsRedacted() string {
	return redact.List(strings.Join(c.ClusterHosts, ","))
}

// LoadConfig builds the configuration in the one order
// (docs/development.md, *Configuration*): defaults, the environment
// (getenv), args (flags after the subcommand), Resolved, Validate. Help is
// flag.ErrHelp.
func LoadConfig(args []string, getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	if err := flagval.Load("ether", c.vars(), getenv, args, ErrConfig); err != nil {
		return c, err
	}
	c = c.Resolved()
	return c, c.Validate()
}

// NewFlagSet declares c's flags (defaults: c's current values) on a new
// set writing its usage to out.
func NewFlagSet(c *Config, out io.Writer) *flag.FlagSet {
	return flagval.FlagSet("ether", c.vars(), out)
}
