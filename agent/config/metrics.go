package config

import (
	"net"
	"strings"
)

// ExampleMetricsListen is the address the examples suggest for
// metrics_listen: loopback, so that only a scraper on the host (or a
// tunnel) reaches it.
const ExampleMetricsListen = "127.0.0.1:9590"

// validateMetricsListen checks metrics_listen: empty (no endpoint) or a
// host:port to listen on, the port 1-65535. The host may be empty (every
// interface), an IP address or a name.
func validateMetricsListen(p *problems, addr string) {
	const field = "agent.metrics_listen"
	if addr == "" {
		return
	}
	host, port, err := net.SplitHostPort(addr)
	switch {
	case err != nil:
		p.add(field, "%q is not a host:port address (want e.g. %q)", addr, ExampleMetricsListen)
	case strings.ContainsAny(host, " /"):
		p.add(field, "%q has a bad host %q (want an IP address or a host name)", addr, host)
	case !validPort(port):
		p.add(field, "%q has a bad port %q (want 1-65535)", addr, port)
	}
}
