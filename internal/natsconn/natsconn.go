// Package natsconn is the one way a Corrosion program dials NATS and checks
// the settings it dials with: the agent, the panel, ether and worldsrv
// (through ether) use it.
//
// Dial returns at once even when no server is up: the client retries
// forever with backoff (1 s doubling to 30 s, ±20 %), also after
// authorization errors (a password rotated on the server must not end a
// long-lived process's connection). Each kind of failure (unreachable,
// tls, authorization violation, error) is logged once per outage with the
// server (credentials hidden) and the reason, then "nats connected" when it
// is back; the retries in between are silent (connlog.go).
package natsconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/internal/backoff"
	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/internal/redact"
)

// Schemes are the URL schemes a NATS URL may have.
var Schemes = []string{"nats", "tls", "ws", "wss"}

// URLs returns the entries of a comma-separated URL list, trimmed; empty
// entries are dropped.
func URLs(list string) []string {
	var out []string
	_ = flagval.List(&out)(list) // a list never fails
	return out
}

// CheckScheme says why u's scheme is not one of Schemes, or nil.
func CheckScheme(u *url.URL) error {
	if !slices.Contains(Schemes, u.Scheme) {
		return fmt.Errorf("has scheme %q (want %s)", u.Scheme, strings.Join(Schemes, ", "))
	}
	return nil
}

// WithScheme is a server address as nats.go reads it: host:port without a
// scheme is nats://host:port.
func WithScheme(server string) string {
	if strings.Contains(server, "://") {
		return server
	}
	return "nats://" + server
}

// CheckURL says why server (one entry, its scheme given) is not a NATS
// server URL: not a URL, no host, or a scheme not in Schemes; nil when it
// is. The caller names its field and shows the URL redacted.
func CheckURL(server string) error {
	u, err := url.Parse(server)
	switch {
	case err != nil:
		return errors.New("is not a URL")
	case u.Host == "" || u.Hostname() == "":
		return errors.New("has no host")
	}
	return CheckScheme(u)
}

// Auth is how a client authenticates to NATS: at most one of user and
// password, token, nkey seed file and creds file (the caller's Validate
// refuses more, naming its own fields), or none (credentials in the URL
// need no option). CAFile adds a CA for the servers' certificates.
type Auth struct {
	User, Password string // together
	Token          string
	NKeySeedFile   string
	Creds          string // a .creds file (JWT and nkey)
	CAFile         string
}

// options turns a into client options.
func (a Auth) options() ([]nats.Option, error) {
	var opts []nats.Option
	switch {
	case a.User != "" || a.Password != "":
		opts = append(opts, nats.UserInfo(a.User, a.Password))
	case a.Token != "":
		opts = append(opts, nats.Token(a.Token))
	case a.NKeySeedFile != "":
		opt, err := nats.NkeyOptionFromSeed(a.NKeySeedFile)
		if err != nil {
			return nil, fmt.Errorf("nats nkey seed file %s: %w", a.NKeySeedFile, err)
		}
		opts = append(opts, opt)
	case a.Creds != "":
		opts = append(opts, nats.UserCredentials(a.Creds))
	}
	if a.CAFile != "" {
		opts = append(opts, nats.RootCAs(a.CAFile))
	}
	return opts, nil
}

// Options configure Dial.
type Options struct {
	URL  string // comma-separated list of servers
	Name string // the client's name, as the server shows it
	Auth Auth
	// ReconnectBufSize is how much is buffered while disconnected; 0:
	// nats.go's default.
	ReconnectBufSize int
	Log              *slog.Logger
	// OnConnect runs after the first connect (reconnect false) and every
	// reconnect (true): the program re-announces itself there; nil:
	// nothing.
	OnConnect func(nc *nats.Conn, reconnect bool)
	// ReconnectDelay is the wait after a pass over the servers failed;
	// nil: backoff from 1 s, doubling, to 30 s, ±20 %. A cluster member
	// that must rejoin at once (ether) sets a short constant.
	ReconnectDelay func(attempts int) time.Duration
	// PingInterval is how often the server is pinged to notice a dead
	// connection; 0: 20 s.
	PingInterval time.Duration
	// Program names what to restart when the client library closes the
	// connection for good ("restart the agent to reconnect").
	Program string
}

// Dial connects as o says. ctx is the program's: once it is done, the
// connection going away is expected and not logged.
func Dial(ctx context.Context, o Options) (*nats.Conn, error) {
	servers := URLs(o.URL)
	cl := newConnLog(o.Log, servers)
	onConnect := func(reconnect bool) nats.ConnHandler {
		return func(nc *nats.Conn) {
			cl.connected(nc)
			if o.OnConnect != nil {
				o.OnConnect(nc, reconnect)
			}
		}
	}
	delay, ping := o.ReconnectDelay, o.PingInterval
	if delay == nil {
		delay = reconnectDelay
	}
	if ping == 0 {
		ping = 20 * time.Second
	}
	opts := []nats.Option{
		nats.Name(o.Name),
		nats.MaxReconnects(-1),
		nats.RetryOnFailedConnect(true),
		// nats.go gives up for good after the same authorization error
		// twice; a password rotated on the server must not end the
		// connection while the process lives on.
		nats.IgnoreAuthErrorAbort(),
		nats.SetCustomDialer(cl),
		nats.CustomReconnectDelay(func(attempts int) time.Duration {
			cl.afterPass()
			return delay(attempts)
		}),
		nats.PingInterval(ping),
		nats.ConnectHandler(onConnect(false)),
		nats.ReconnectHandler(onConnect(true)),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			// At shutdown the drain disconnects on purpose; a nil err is
			// this client's own close or drain.
			if ctx.Err() == nil && err != nil {
				cl.disconnected(err)
			}
		}),
		nats.ReconnectErrHandler(func(_ *nats.Conn, err error) { cl.failed("", err) }),
		nats.ClosedHandler(func(*nats.Conn) {
			if ctx.Err() == nil {
				o.Log.Error(fmt.Sprintf("nats connection closed by the client library; restart %s to reconnect", o.Program))
			}
		}),
		nats.ErrorHandler(func(_ *nats.Conn, s *nats.Subscription, err error) {
			if s == nil && classifyConnErr(err) == failAuth {
				cl.failed("", err) // a reconnect refused by the server
				return
			}
			o.Log.Warn("nats async error", "subject", subjectOf(s), "err", err)
		}),
	}
	if o.ReconnectBufSize != 0 {
		opts = append(opts, nats.ReconnectBufSize(o.ReconnectBufSize))
	}
	auth, err := o.Auth.options()
	if err != nil {
		return nil, err
	}
	opts = append(opts, auth...)
	nc, err := nats.Connect(strings.Join(servers, ","), opts...)
	if err != nil {
		return nil, fmt.Errorf("nats connect %s: %w", redact.List(o.URL), err)
	}
	cl.nc.Store(nc)
	return nc, nil
}

// reconnectDelay backs off from 1 s, doubling, to 30 s, each ±20% (nats.go
// adds no jitter to a custom delay); attempts counts passes over the server
// list from 1.
func reconnectDelay(attempts int) time.Duration {
	d := backoff.Doubled(time.Second, 30*time.Second, attempts-1)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

func subjectOf(s *nats.Subscription) string {
	if s == nil {
		return ""
	}
	return s.Subject
}
