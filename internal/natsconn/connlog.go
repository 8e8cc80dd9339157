package natsconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/internal/redact"
)

// failKind is why a connection attempt to NATS failed, as logged.
type failKind string

const (
	failUnreachable failKind = "unreachable"             // dial refused, timed out, no route, DNS
	failTLS         failKind = "tls"                     // handshake, certificate, or TLS wanted by one side only
	failAuth        failKind = "authorization violation" // the server refused the credentials
	failOther       failKind = "error"                   // anything else
)

// classifyConnErr sorts a failed connection attempt's error.
func classifyConnErr(err error) failKind {
	var (
		certInvalid x509.CertificateInvalidError
		unknownCA   x509.UnknownAuthorityError
		hostname    x509.HostnameError
		recordHdr   tls.RecordHeaderError
		tlsAlert    tls.AlertError
		certVerify  *tls.CertificateVerificationError
		opErr       *net.OpError
		dnsErr      *net.DNSError
	)
	switch {
	case err == nil:
		return failOther
	case errors.Is(err, nats.ErrAuthorization), errors.Is(err, nats.ErrAuthExpired),
		errors.Is(err, nats.ErrAuthRevoked), errors.Is(err, nats.ErrAccountAuthExpired),
		strings.Contains(strings.ToLower(err.Error()), "authorization violation"):
		return failAuth
	case errors.Is(err, nats.ErrSecureConnRequired), errors.Is(err, nats.ErrSecureConnWanted),
		errors.As(err, &certInvalid), errors.As(err, &unknownCA), errors.As(err, &hostname),
		errors.As(err, &recordHdr), errors.As(err, &tlsAlert), errors.As(err, &certVerify),
		strings.Contains(err.Error(), "tls: "):
		return failTLS
	case errors.As(err, &opErr), errors.As(err, &dnsErr), errors.Is(err, nats.ErrNoServers),
		errors.Is(err, nats.ErrTimeout):
		return failUnreachable
	}
	return failOther
}

// connLog turns the NATS client's callbacks into log lines an operator can
// act on: each kind of failure once per episode (an episode runs from the
// loss of the connection, or the start, to the next successful connect),
// with the server (redacted) and the reason, then "nats connected" with
// the server when it is back. Retries in between are silent.
type connLog struct {
	log     *slog.Logger // immutable
	servers []string     // immutable; the configured URLs

	nc       atomic.Pointer[nats.Conn] // set once Connect returned
	lastDial atomic.Pointer[string]    // the address of the latest dial that succeeded

	mu     sync.Mutex
	logged map[failKind]bool // guarded by mu; kinds logged in this episode
}

func newConnLog(log *slog.Logger, servers []string) *connLog {
	return &connLog{log: log, servers: servers, logged: map[failKind]bool{}}
}

// failed logs err once per kind per episode. addr is the server's
// host:port when known ("" for the latest one dialled).
func (l *connLog) failed(addr string, err error) {
	if err == nil {
		return
	}
	if addr == "" {
		if p := l.lastDial.Load(); p != nil {
			addr = *p
		}
	}
	kind := classifyConnErr(err)
	l.mu.Lock()
	seen := l.logged[kind]
	l.logged[kind] = true
	l.mu.Unlock()
	if !seen {
		l.log.Warn("nats: cannot connect; retrying with backoff", "server", l.serverFor(addr),
			"reason", string(kind), "err", redact.List(err.Error()))
	}
}

// connected ends the episode.
func (l *connLog) connected(nc *nats.Conn) {
	l.mu.Lock()
	clear(l.logged)
	l.mu.Unlock()
	l.log.Info("nats connected", "server", redact.URL(nc.ConnectedUrl()))
}

// disconnected starts an episode.
func (l *connLog) disconnected(err error) {
	l.mu.Lock()
	clear(l.logged)
	l.mu.Unlock()
	l.log.Warn("nats disconnected; reconnecting", "err", err)
}

// Dial implements nats.CustomDialer: a plain TCP dial whose failures are
// logged as unreachable.
func (l *connLog) Dial(network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: nats.DefaultTimeout}
	conn, err := d.Dial(network, addr)
	if err != nil {
		l.failed(addr, err)
		return nil, err
	}
	l.lastDial.Store(&addr)
	return conn, nil
}

// afterPass is called once the client has tried every server (from the
// reconnect delay). A failed TLS handshake or CONNECT of the last attempt
// has no callback of its own in nats.go: it is the connection's last
// error.
func (l *connLog) afterPass() {
	if nc := l.nc.Load(); nc != nil && !nc.IsConnected() {
		l.failed("", nc.LastError())
	}
}

// serverFor names addr (host:port) by the configured URL it came from,
// credentials redacted; addr itself when none matches.
func (l *connLog) serverFor(addr string) string {
	for _, s := range l.servers {
		u, err := url.Parse(s)
		if err != nil {
			continue
		}
		host := u.Host
		if u.Port() == "" {
			host = net.JoinHostPort(u.Hostname(), defaultPort(u.Scheme))
		}
		if host == addr {
			return redact.URL(s)
		}
	}
	if addr == "" {
		return redact.List(strings.Join(l.servers, ","))
	}
	return redact.URL(addr)
}

func defaultPort(scheme string) string {
	switch scheme {
	case "ws":
		return "80"
	case "wss":
		return "443"
	}
	return "4222"
}
