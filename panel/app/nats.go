package app

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/internal/redact"
)

// failKind is why a connection attempt to NATS failed, as logged.
type failKind string

const (
	failUnreachable failKind = "unreachable"
	failTLS         failKind = "tls"
	failAuth        failKind = "authorization violation"
	failOther       failKind = "error"
)

func classifyNATSErr(err error) failKind {
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "authorization"), strings.Contains(msg, "authentication"):
		return failAuth
	case strings.Contains(msg, "tls"), strings.Contains(msg, "x509"), strings.Contains(msg, "certificate"):
		return failTLS
	case strings.Contains(msg, "connection refused"), strings.Contains(msg, "no route"),
		strings.Contains(msg, "no servers"), strings.Contains(msg, "timeout"), strings.Contains(msg, "no such host"):
		return failUnreachable
	}
	return failOther
}

// connLog logs each kind of connection failure once per episode (from a
// loss of the connection, or the start, to the next connect), then
// "nats connected" when it is back; the retries in between are silent.
type connLog struct {
	log     *slog.Logger // immutable
	servers string       // immutable; the configured URLs, redacted

	mu     sync.Mutex
	logged map[failKind]bool // guarded by mu; kinds logged in this episode
}

func (l *connLog) failed(err error) {
	if err == nil {
		return
	}
	kind := classifyNATSErr(err)
	l.mu.Lock()
	seen := l.logged[kind]
	l.logged[kind] = true
	l.mu.Unlock()
	if !seen {
		l.log.Warn("nats: cannot connect; retrying with backoff", "servers", l.servers,
			"reason", string(kind), "err", redact.List(err.Error()))
	}
}

func (l *connLog) reset() {
	l.mu.Lock()
	clear(l.logged)
	l.mu.Unlock()
}

// reconnectDelay backs off from 1 s, doubling, to 30 s, each ±20%.
func reconnectDelay(attempts int) time.Duration {
	d := min(time.Second<<min(max(attempts-1, 0), 5), 30*time.Second)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// connectNATS dials NATS and returns at once even when no server is up:
// the client retries forever with backoff while the panel serves (pages
// read Postgres; live parts resume on reconnect).
func connectNATS(ctx context.Context, cfg Config, log *slog.Logger) (*nats.Conn, error) {
	host, _ := os.Hostname()
	cl := &connLog{log: log, servers: redact.List(cfg.NATSURL), logged: map[failKind]bool{}}
	var ncMu sync.Mutex
	var ncRef *nats.Conn // guarded by ncMu; set once Connect returned
	opts := []nats.Option{
		nats.Name("corrosion-panel@" + host),
		nats.MaxReconnects(-1),
		nats.RetryOnFailedConnect(true),
		nats.IgnoreAuthErrorAbort(),
		nats.CustomReconnectDelay(func(attempts int) time.Duration {
			ncMu.Lock()
			nc := ncRef
			ncMu.Unlock()
			if nc != nil && !nc.IsConnected() {
				cl.failed(nc.LastError())
			}
			return reconnectDelay(attempts)
		}),
		nats.ReconnectBufSize(8 << 20),
		nats.PingInterval(20 * time.Second),
		nats.ConnectHandler(func(nc *nats.Conn) {
			cl.reset()
			log.Info("nats connected", "server", redact.URL(nc.ConnectedUrl()))
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			cl.reset()
			log.Info("nats reconnected", "server", redact.URL(nc.ConnectedUrl()))
		}),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if ctx.Err() == nil {
				cl.reset()
				log.Warn("nats disconnected; reconnecting", "err", err)
			}
		}),
		nats.ReconnectErrHandler(func(_ *nats.Conn, err error) { cl.failed(err) }),
		nats.ErrorHandler(func(_ *nats.Conn, s *nats.Subscription, err error) {
			if s == nil {
				cl.failed(err)
				return
			}
			log.Warn("nats async error", "subject", s.Subject, "err", err)
		}),
	}
	opts = append(opts, natsAuth(cfg)...)
	nc, err := nats.Connect(strings.Join(cfg.NATSURLs(), ","), opts...)
	if err != nil {
		return nil, fmt.Errorf("nats connect %s: %w", redact.List(cfg.NATSURL), err)
	}
	ncMu.Lock()
	ncRef = nc
	ncMu.Unlock()
	return nc, nil
}

// natsAuth turns the one way cfg authenticates into options (Validate
// checked there is at most one; credentials in the URL need none).
func natsAuth(cfg Config) []nats.Option {
	var opts []nats.Option
	switch {
	case cfg.NATSUser != "":
		opts = append(opts, nats.UserInfo(cfg.NATSUser, cfg.NATSPassword))
	case cfg.NATSToken != "":
		opts = append(opts, nats.Token(cfg.NATSToken))
	case cfg.NATSCreds != "":
		opts = append(opts, nats.UserCredentials(cfg.NATSCreds))
	case cfg.NATSNKeySeedFile != "":
		if opt, err := nats.NkeyOptionFromSeed(cfg.NATSNKeySeedFile); err == nil {
			opts = append(opts, opt)
		} else {
			opts = append(opts, func(*nats.Options) error { return fmt.Errorf("nats nkey seed file: %w", err) })
		}
	}
	if cfg.NATSCAFile != "" {
		opts = append(opts, nats.RootCAs(cfg.NATSCAFile))
	}
	return opts
}
