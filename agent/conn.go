package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natsconn"
)

// goingOfflineBudget bounds the going_offline beacon at shutdown.
const goingOfflineBudget = 500 * time.Millisecond

// connect dials NATS (internal/natsconn): it returns at once even when no
// server is up, the client retrying forever while the agent goes on
// supervising; on every (re)connect the agent publishes a heartbeat and
// each instance's state. ctx is the agent's: once it is done, the
// connection closing is expected.
func (a *Agent) connect(ctx context.Context) (*nats.Conn, error) {
	host, _ := os.Hostname()
	return natsconn.Dial(ctx, natsconn.Options{
		URL:              a.cfg.Agent.NATSURL,
		Name:             fmt.Sprintf("corrosion-agent %s@%s", a.cfg.Agent.LicenseID, host),
		Auth:             natsAuth(&a.cfg.Agent),
		ReconnectBufSize: 16 << 20,
		Log:              a.log,
		OnConnect:        func(*nats.Conn, bool) { a.onConnect() },
		Program:          "the agent",
	})
}

// natsAuth is the one way the config authenticates (config.NATSAuth;
// credentials in the URL need no option) and the CA file.
func natsAuth(ac *config.Agent) natsconn.Auth {
	auth := natsconn.Auth{CAFile: ac.NATSCAFile}
	switch ac.NATSAuth() {
	case config.NATSAuthUserPassword:
		auth.User, auth.Password = ac.NATSUser, ac.NATSPassword
	case config.NATSAuthToken:
		auth.Token = ac.NATSToken
	case config.NATSAuthNKey:
		auth.NKeySeedFile = ac.NATSNKeySeedFile
	case config.NATSAuthCreds:
		auth.Creds = ac.NATSCreds
	}
	return auth
}

// onConnect re-announces everything after a (re)connect.
func (a *Agent) onConnect() {
	select {
	case a.hbKick <- struct{}{}:
	default:
	}
	for _, inst := range a.list() {
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
