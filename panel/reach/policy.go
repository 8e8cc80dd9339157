package reach

import (
	"net"
	"net/netip"
)

// refusedRanges are the addresses the probe never connects to unless
// Options.AllowPrivate says so, by what they are: nothing on them is a
// public game server, and a probe there would let the panel reach into its
// own network. The first kind that holds an address names why.
var refusedRanges = []struct {
	why      string
	prefixes []netip.Prefix
}{
	{"the unspecified address", prefixes("0.0.0.0/32", "::/128")},
	{`a "this network" address (RFC 1122)`, prefixes("0.0.0.0/8")},
	{"a loopback address", prefixes("127.0.0.0/8", "::1/128")},
	{"a private address (RFC 1918)", prefixes("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")},
	{"a unique local address (RFC 4193)", prefixes("fc00::/7")},
	{"a carrier-grade NAT address (RFC 6598)", prefixes("100.64.0.0/10")},
	{"a link-local address", prefixes("169.254.0.0/16", "fe80::/10")},
	{"a multicast address", prefixes("224.0.0.0/4", "ff00::/8")},
	{"the broadcast address", prefixes("255.255.255.255/32")},
	{"a reserved address (RFC 1112)", prefixes("240.0.0.0/4")},
}

// prefixes parses CIDR literals.
func prefixes(cidrs ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(cidrs))
	for i, c := range cidrs {
		out[i] = netip.MustParsePrefix(c)
	}
	return out
}

// Refusal says in words why the probe may not connect to addr — one of
// refusedRanges, or one of own (the panel's addresses): "10.0.0.5 is a
// private address (RFC 1918)" — or returns "" when it may. An IPv4-mapped
// IPv6 address is judged as its IPv4 address.
func Refusal(addr netip.Addr, own []netip.Addr) string {
	if why := refusedAs(addr, own); why != "" {
		return addr.Unmap().WithZone("").String() + " is " + why
	}
	return ""
}

// refusedAs is what kind of address Refusal refuses addr as, or "".
func refusedAs(addr netip.Addr, own []netip.Addr) string {
	a := addr.Unmap().WithZone("")
	for _, r := range refusedRanges {
		for _, p := range r.prefixes {
			if p.Contains(a) {
				return r.why
			}
		}
	}
	for _, o := range own {
		if o.Unmap().WithZone("") == a {
			return "one of the panel's own addresses"
		}
	}
	return ""
}

// interfaceAddrs is the machine's own addresses, from its interfaces.
func interfaceAddrs() ([]netip.Addr, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	var out []netip.Addr
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out = append(out, p.Addr())
		}
	}
	return out, nil
}
