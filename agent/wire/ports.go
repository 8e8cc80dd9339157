package wire

import (
	"net/netip"
	"regexp"
)

// Ports and addresses: the rules the agent's config, its templates' ports
// and the panel's inbound probe share.

// The port vocabulary: BoundPortInfo.Protocol is PortTCP or PortUDP, and
// QueryPortName is the name of a Steam game's query port, as the templates
// declare it (rust, conan, soulmask, valheim): a udp port of this name
// answers A2S_INFO, which the panel's inbound probe asks.
const (
	PortTCP       = "tcp"
	PortUDP       = "udp"
	QueryPortName = "query"
)

// Query reports whether the port answers A2S_INFO: a udp port named
// QueryPortName. It is the one reading of that rule.
func (p BoundPortInfo) Query() bool { return p.Protocol == PortUDP && p.Name == QueryPortName }

var portNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// ValidPortName reports whether name can name an instance's port:
// [a-z][a-z0-9_]{0,31}.
func ValidPortName(name string) bool { return portNameRE.MatchString(name) }

var hostnameRE = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}[A-Za-z0-9_])?)*\.?$`)

// ValidHostAddress reports whether s is an IP address (IPv6 without
// brackets) or a DNS name, without a port: what [agent] public_address and
// a [[probe]] host may be, and what the panel keeps of a heartbeat's
// public_address.
func ValidHostAddress(s string) bool {
	if _, err := netip.ParseAddr(s); err == nil {
		return true
	}
	return len(s) <= 253 && hostnameRE.MatchString(s)
}
