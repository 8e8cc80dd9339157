// Package peerkey is the key under which a per-client limit counts a remote
// peer: its IP without the port, an IPv4-mapped address as plain IPv4, and
// an IPv6 address as its /64, since one host commonly holds a whole /64 and
// could otherwise step around a limit address by address. The panel's login
// limiter (panel/auth), the world's admin console limiter (worldsrv/admin)
// and the world's per-address connection bound (worldsrv/engine) count
// with it.
package peerkey

import "net/netip"

// Of is the key of addr, a remote address with or without its port
// ("192.0.2.1:40000", "[2001:db8::1]:9", "2001:db8::1"). What is not an
// address is its own key.
func Of(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			return addr
		}
		ip = ap.Addr()
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, _ := ip.WithZone("").Prefix(64) // cannot fail for an IPv6 address
	return p.String()
}
