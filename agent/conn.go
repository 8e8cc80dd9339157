package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/redact"
)

// goingOfflineBudget bounds the going_offline beacon at shutdown.
const goingOfflineBudget = 500 * time.Millisecond

// connect dials NATS. It returns at once even when no server is up: the
// client keeps retrying forever with backoff while the agent goes on
// supervising, also after authorization errors (a rotated password), and
// on every (re)connect the agent publishes a heartbeat and each instance's
// state. connLog logs each kind of failure once per episode. ctx is the
// agent's: once it is done, the connection closing is expected.
func (a *Agent) connect(ctx context.Context) (*nats.Conn, error) {
	host, _ := os.Hostname()
	cl := newConnLog(a.log, a.cfg.NATSURLs())
	opts := []nats.Option{
		nats.Name(fmt.Sprintf("corrosion-agent %s@%s", a.cfg.Agent.LicenseID, host)),
		nats.MaxReconnects(-1),
		nats.RetryOnFailedConnect(true),
		// nats.go gives up for good after the same authorization error
		// twice; a password rotated on the server must not end the agent's
		// connection while the process lives on.
		nats.IgnoreAuthErrorAbort(),
		nats.SetCustomDialer(cl),
		nats.CustomReconnectDelay(func(attempts int) time.Duration {
			cl.afterPass()
			return reconnectDelay(attempts)
		}),
		nats.ReconnectBufSize(16 << 20),
		nats.PingInterval(20 * time.Second),
		nats.ConnectHandler(func(nc *nats.Conn) { cl.connected(nc); a.onConnect() }),
		nats.ReconnectHandler(func(nc *nats.Conn) { cl.connected(nc); a.onConnect() }),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if ctx.Err() == nil { // at shutdown the drain disconnects on purpose
				cl.disconnected(err)
			}
		}),
		nats.ReconnectErrHandler(func(_ *nats.Conn, err error) { cl.failed("", err) }),
		nats.ClosedHandler(func(*nats.Conn) {
			if ctx.Err() == nil {
				a.log.Error("nats connection closed by the client library; restart the agent to reconnect")
			}
		}),
		nats.ErrorHandler(func(_ *nats.Conn, s *nats.Subscription, err error) {
			if s == nil && classifyConnErr(err) == failAuth {
				cl.failed("", err) // a reconnect refused by the server
				return
			}
			a.log.Warn("nats async error", "subject", subjectOf(s), "err", err)
		}),
	}
	auth, err := authOptions(&a.cfg.Agent)
	if err != nil {
		return nil, err
	}
	opts = append(opts, auth...)
	nc, err := nats.Connect(strings.Join(a.cfg.NATSURLs(), ","), opts...)
	if err != nil {
		return nil, fmt.Errorf("nats connect %s: %w", redact.List(a.cfg.Agent.NATSURL), err)
	}
	cl.nc.Store(nc)
	return nc, nil
}

// authOptions turns the one way the config authenticates (config.NATSAuth;
// credentials in the URL need no option) and the CA file into options.
func authOptions(ac *config.Agent) ([]nats.Option, error) {
	var opts []nats.Option
	switch ac.NATSAuth() {
	case config.NATSAuthUserPassword:
		opts = append(opts, nats.UserInfo(ac.NATSUser, ac.NATSPassword))
	case config.NATSAuthToken:
		opts = append(opts, nats.Token(ac.NATSToken))
	case config.NATSAuthNKey:
		opt, err := nats.NkeyOptionFromSeed(ac.NATSNKeySeedFile)
		if err != nil {
			return nil, fmt.Errorf("nats nkey seed file %s: %w", ac.NATSNKeySeedFile, err)
		}
		opts = append(opts, opt)
	case config.NATSAuthCreds:
		opts = append(opts, nats.UserCredentials(ac.NATSCreds))
	}
	if ac.NATSCAFile != "" {
		opts = append(opts, nats.RootCAs(ac.NATSCAFile))
	}
	return opts, nil
}

// reconnectDelay backs off from 1 s, doubling, to 30 s, each ±20% (nats.go
// adds no jitter to a custom delay); attempts counts passes over the server
// list from 1.
func reconnectDelay(attempts int) time.Duration {
	d := time.Second << min(max(attempts-1, 0), 5)
	return jitter(min(d, 30*time.Second))
}

func subjectOf(s *nats.Subscription) string {
	if s == nil {
		return ""
	}
	return s.Subject
}

// onConnect re-announces everything after a (re)connect.
func (a *Agent) onConnect() {
	select {
	case a.hbKick <- struct{}{}:
	default:
	}
	for _, inst := range a.instances {
		if inst.sup != nil {
			inst.sup.Announce()
		}
	}
}

// goingOffline publishes the going_offline beacon and waits up to the
// budget for the server to have it.
func (a *Agent) goingOffline(nc *nats.Conn) {
	if err := nc.Publish(wire.GoingOfflineSubject(a.cfg.Agent.LicenseID), []byte("{}")); err != nil {
		a.log.Warn("going_offline", "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), goingOfflineBudget)
	defer cancel()
	if err := nc.FlushWithContext(ctx); err != nil {
		a.log.Warn("going_offline flush", "err", err)
	}
}

// publisher publishes state and console events; it is the supervisors'
// Sink. It takes no lock of its own: supervisors call it with their locks
// held (the lock order is written once, at supervise's console type), so
// the only lock under theirs is the NATS client's, while Publish copies a
// message into the client's buffer. Each call encodes into a buffer of its
// own (pooled), so instances encode in parallel. While NATS is down the
// client buffers up to its reconnect buffer, then drops (and we log once
// per burst).
type publisher struct {
	license string       // immutable
	log     *slog.Logger // immutable

	nc      atomic.Pointer[nats.Conn] // set by setConn; nil before the first connect
	failing atomic.Int64              // publish errors since the last success; logged at the first
	bufs    sync.Pool                 // console encoding buffers (*[]byte); safe for concurrent use
}

// maxPooledBuf: a burst's larger buffer is left to the collector.
const maxPooledBuf = 1 << 20

func (p *publisher) setConn(nc *nats.Conn) { p.nc.Store(nc) }

func (p *publisher) publish(subject string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		p.log.Error("encode event", "subject", subject, "err", err)
		return
	}
	p.send(subject, b)
}

// send publishes b; NATS copies it, so b may be reused afterwards.
func (p *publisher) send(subject string, b []byte) {
	nc := p.nc.Load()
	if nc == nil {
		return // before the first connect: the state is re-announced on connect
	}
	if err := nc.Publish(subject, b); err != nil {
		if p.failing.Add(1) == 1 {
			p.log.Warn("publish failed; dropping events until NATS is back", "subject", subject, "err", err)
		}
		return
	}
	if p.failing.Load() != 0 {
		p.failing.Store(0)
	}
}

// State implements supervise.Sink.
func (p *publisher) State(id string, ev wire.StateEvent) {
	p.publish(wire.StatusSubject(p.license, id), wire.StatusEvent{
		Timestamp: time.Now().UTC(), InstanceID: id, Event: ev})
}

// Console implements supervise.Sink. Console messages are the hot path:
// they are encoded by hand into a pooled buffer.
func (p *publisher) Console(id string, lines []wire.ConsoleLine) {
	m := wire.ConsoleMessage{Timestamp: time.Now().UTC(), InstanceID: id, Lines: lines}
	bp, _ := p.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	*bp = m.AppendJSON((*bp)[:0])
	p.send(wire.ConsoleSubject(p.license, id), *bp)
	if cap(*bp) <= maxPooledBuf {
		p.bufs.Put(bp)
	}
}
