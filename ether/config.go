package ether

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"regexp"
	"strconv"
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
