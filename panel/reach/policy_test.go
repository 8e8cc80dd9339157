package reach

import (
	"net/netip"
	"testing"
)

func TestRefusal(t *testing.T) {
	own := []netip.Addr{netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("2001:db8::7")}
	cases := []struct{ addr, want string }{
		{"0.0.0.0", "0.0.0.0 is the unspecified address"},
		{"::", ":: is the unspecified address"},
		{"0.1.2.3", `0.1.2.3 is a "this network" address (RFC 1122)`},
		{"127.0.0.1", "127.0.0.1 is a loopback address"},
		{"127.255.0.9", "127.255.0.9 is a loopback address"},
		{"::1", "::1 is a loopback address"},
		{"10.0.0.5", "10.0.0.5 is a private address (RFC 1918)"},
		{"172.16.0.1", "172.16.0.1 is a private address (RFC 1918)"},
		{"172.31.255.255", "172.31.255.255 is a private address (RFC 1918)"},
		{"192.168.1.10", "192.168.1.10 is a private address (RFC 1918)"},
		{"fd12:3456::1", "fd12:3456::1 is a unique local address (RFC 4193)"},
		{"fc00::1", "fc00::1 is a unique local address (RFC 4193)"},
		{"100.64.1.1", "100.64.1.1 is a carrier-grade NAT address (RFC 6598)"},
		{"169.254.169.254", "169.254.169.254 is a link-local address"},
		{"fe80::1", "fe80::1 is a link-local address"},
		{"fe80::1%eth0", "fe80::1 is a link-local address"},
		{"224.0.0.251", "224.0.0.251 is a multicast address"},
		{"ff02::1", "ff02::1 is a multicast address"},
		{"255.255.255.255", "255.255.255.255 is the broadcast address"},
		{"240.0.0.1", "240.0.0.1 is a reserved address (RFC 1112)"},
		{"::ffff:10.1.2.3", "10.1.2.3 is a private address (RFC 1918)"},
		{"::ffff:127.0.0.1", "127.0.0.1 is a loopback address"},
		{"203.0.113.7", "203.0.113.7 is one of the panel's own addresses"},
		{"::ffff:203.0.113.7", "203.0.113.7 is one of the panel's own addresses"},
		{"2001:db8::7", "2001:db8::7 is one of the panel's own addresses"},
		// public: allowed
		{"203.0.113.8", ""},
		{"8.8.8.8", ""},
		{"172.32.0.1", ""},
		{"100.128.0.1", ""},
		{"2001:db8::8", ""},
		{"2a00:1450:4001::1", ""},
	}
	for _, c := range cases {
		if got := Refusal(netip.MustParseAddr(c.addr), own); got != c.want {
			t.Errorf("Refusal(%s) = %q, want %q", c.addr, got, c.want)
		}
	}
}
