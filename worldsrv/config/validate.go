package config

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/internal/natsconn"
	"github.com/corrosion/corrosion/internal/redact"
)

// Validate names the first bad flag (and its variable, where it has one).
// It never changes c: an unset field that Resolved would fill is fine.
func (c Config) Validate() error {
	checks := []func() error{c.checkNode, c.checkEther, c.checkDB, c.checkCluster, c.checkLimits, c.checkListen, c.checkIdentity, c.checkMisc}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func bad(flag, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrConfig, flag, fmt.Sprintf(format, args...))
}

func (c Config) checkNode() error {
	if c.NodeID == 0 {
		return bad("--node-id (RS_NODE_ID)", "must be 1-255")
	}
	return nil
}

func (c Config) checkEther() error {
	switch {
	case c.Ether != "" && !c.Ether.Valid():
		return bad("--ether", "%q is not spawn, connect or off", string(c.Ether))
	case c.NoEther && c.Ether != "" && c.Ether != EtherOff:
		return bad("--no-ether", "conflicts with --ether %s (--no-ether means --ether off)", c.Ether)
	case c.EtherPort < 0 || c.EtherPort > 65535:
		return bad("--ether-port (RS_ETHER_PORT)", "%d is not a TCP port", c.EtherPort)
	case len(c.LinkToken) > maxLinkToken:
		return bad("--link-token (RS_LINK_TOKEN)", "%d bytes; a frame carries at most %d", len(c.LinkToken), maxLinkToken)
	case strings.ContainsAny(c.LinkToken, "\x00\n\r"):
		return bad("--link-token (RS_LINK_TOKEN)", "holds a NUL or line break")
	}
	return nil
}

func (c Config) checkDB() error {
	if err := c.DB.Check(); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return nil
}

func (c Config) checkCluster() error {
	if len(c.Cluster) == 0 && c.Ether != EtherOff && !c.NoEther {
		return bad("--cluster (RS_CLUSTER_HOSTS)", "no NATS URL")
	}
	for _, h := range c.Cluster {
		if natsconn.CheckURL(natsconn.WithScheme(h)) != nil || strings.ContainsAny(h, ", ") {
			return bad("--cluster (RS_CLUSTER_HOSTS)", "%q is not a URL like nats://host:4222", redact.URL(h))
		}
	}
	return nil
}

func (c Config) checkLimits() error {
	switch {
	case c.MaxPlayers < 1 || c.MaxPlayers > 65535:
		return bad("--max-players", "%d must be 1-65535", c.MaxPlayers)
	case c.MaxConnsPerIP < 1:
		return bad("--max-conns-per-ip", "%d must be at least 1", c.MaxConnsPerIP)
	case c.BiomeSet && !c.Biome.Valid():
		return bad("--biome", "%d is not a biome (0-4)", c.Biome)
	}
	return nil
}

func (c Config) checkListen() error {
	addrs := []struct{ flag, addr string }{
		{"--game-listen", c.GameListen}, {"--http-listen", c.HTTPListen}, {"--rcon-listen", c.RCONListen},
	}
	seen := map[string]string{}
	for _, a := range addrs {
		if a.addr == "" {
			continue // Resolved derives it from the node id
		}
		if err := checkHostPort(a.addr); err != nil {
			return bad(a.flag, "%q: %v", a.addr, err)
		}
		if other, dup := seen[a.addr]; dup && !strings.HasSuffix(a.addr, ":0") {
			return bad(a.flag, "%q is also %s", a.addr, other)
		}
		seen[a.addr] = a.flag
	}
	return nil
}

// checkHostPort accepts host:port with a numeric port 0–65535 (0: any free
// port, for tests) and an empty host (every address).
func checkHostPort(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("not host:port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q is not 0-65535", port)
	}
	return nil
}

func (c Config) checkIdentity() error {
	if c.LicenseID != "" || c.InstanceID != "" {
		if err := proto.CheckAgentIDs(c.LicenseID, c.InstanceID); err != nil {
			return bad("--license-id, --instance-id (CORROSION_LICENSE_ID, CORROSION_INSTANCE_ID)", "%v; the agent sets both", err)
		}
	}
	if err := proto.CheckPublicURL(c.PublicURL); err != nil {
		return bad("--public-url (RS_PUBLIC_URL)", "%v", err)
	}
	return nil
}

func (c Config) checkMisc() error {
	if _, err := flagval.ParseLevel(flagval.LevelName(c.LogLevel)); err != nil {
		return bad("--log-level (RS_LOG_LEVEL)", "%v", err)
	}
	if isWordFile(c.WordFilter) {
		if st, err := os.Stat(c.WordFilter); err != nil {
			return bad("--word-filter", "%v", err)
		} else if !st.Mode().IsRegular() {
			return bad("--word-filter", "%q is not a regular file", c.WordFilter)
		}
	}
	return nil
}
