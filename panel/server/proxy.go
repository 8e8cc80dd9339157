package server

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// proxies are the reverse proxies (load balancers) whose X-Forwarded-For
// the server believes. Without them every client of a panel behind a
// balancer would share the balancer's address — in the audit log and in
// the failed-login rate limit, where one guesser would lock everyone out.
type proxies []netip.Prefix

// parseProxies reads TrustedProxies: addresses or CIDR prefixes.
func parseProxies(list []string) (proxies, error) {
	var out proxies
	for _, s := range list {
		s = strings.TrimSpace(s)
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: not an address or CIDR prefix", s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

func (ps proxies) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the request's client: its peer, or — when the peer is a
// trusted proxy — the rightmost X-Forwarded-For address that is not one
// (entries further left were written by the client and prove nothing).
func (ps proxies) clientAddr(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}, false
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || len(ps) == 0 || !ps.trusted(peer) {
		return netip.Addr{}, false
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return netip.Addr{}, false // a hop we cannot read: keep the peer
		}
		if !ps.trusted(a) {
			return a.Unmap(), true
		}
	}
	return netip.Addr{}, false
}

// realIP rewrites RemoteAddr to the client behind trusted proxies, so the
// audit log and the login rate limit see the operator's address.
func (ps proxies) realIP(next http.Handler) http.Handler {
	if len(ps) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a, ok := ps.clientAddr(r); ok {
			r2 := r.Clone(r.Context())
			r2.RemoteAddr = netip.AddrPortFrom(a, 0).String()
			r = r2
		}
		next.ServeHTTP(w, r)
	})
}
