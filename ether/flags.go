package ether

import (
	"flag"
	"io"
	"strconv"
	"strings"

	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/internal/redact"
)

// vars is ether's settings table: every field of Config with its
// environment variable and flag (docs/ether.md lists them).
func (c *Config) vars() []flagval.Var {
	vars := append(flagval.NodeVars(&c.NodeID, &c.EtherPort), c.DB.Vars()...)
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
