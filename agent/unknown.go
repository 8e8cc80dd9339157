package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
)

// peerIDs remembers the instance ids other agents of this license report
// in their heartbeats, so that this agent does not answer unknown_instance
// for an id a peer runs (several hosts may share a license;
// docs/wire-protocol.md).
type peerIDs struct {
	keep time.Duration // immutable; how long an id stays known after a heartbeat names it

	mu   sync.Mutex
	seen map[string]time.Time // guarded by mu; id → last heartbeat that named it
	// deleted holds the ids this agent deleted (instance_delete) and when:
	// a heartbeat assembled before that (this agent's own, still on its
	// way) does not make them a peer's.
	deleted map[string]time.Time // guarded by mu
}

func newPeerIDs(heartbeatSeconds int) *peerIDs {
	return &peerIDs{keep: peerKeep(heartbeatSeconds), seen: map[string]time.Time{}, deleted: map[string]time.Time{}}
}

// forget drops id, which this agent has just deleted.
func (p *peerIDs) forget(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.seen, id)
	p.deleted[id] = time.Now()
}

// peerKeep is how long a peer's id stays known: three heartbeat
// intervals (the panel's offline rule), at least three minutes.
func peerKeep(heartbeatSeconds int) time.Duration {
	return max(3*time.Duration(heartbeatSeconds)*time.Second, 3*time.Minute)
}

// heartbeat records the ids a heartbeat names. The agent's own heartbeats
// pass here too, which is harmless: its ids are answered by their own
// subscriptions anyway.
func (p *peerIDs) heartbeat(data []byte) {
	var hb struct {
		Timestamp time.Time `json:"timestamp"`
		Instances []struct {
			ID string `json:"id"`
		} `json:"instances"`
	}
	if json.Unmarshal(data, &hb) != nil {
		return // not ours to judge: the panel reports bad heartbeats
	}
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, in := range hb.Instances {
		if at, gone := p.deleted[in.ID]; gone && !hb.Timestamp.After(at) {
			continue
		}
		if wire.ValidInstanceID(in.ID) {
			p.seen[in.ID] = now
		}
	}
	for id, t := range p.seen {
		if now.Sub(t) > p.keep {
			delete(p.seen, id)
		}
	}
	for id, t := range p.deleted {
		if now.Sub(t) > p.keep {
			delete(p.deleted, id)
		}
	}
}

// known reports whether a peer reported id recently.
func (p *peerIDs) known(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.seen[id]
	return ok && time.Since(t) <= p.keep
}

// instanceToken is the {instance_id} token of a request subject
// "corrosion.{license}.{instance_id}.cmd" or "….files.cmd".
func instanceToken(subject string) string {
	parts := strings.Split(subject, ".")
	if len(parts) < 4 {
		return ""
	}
	return parts[2]
}

// serveUnknown answers requests on the license's *.cmd and *.files.cmd
// for instance ids that neither this agent nor a peer of its license runs:
// unknown_instance, instead of NATS's "no responders". It stays silent for
// the ids this agent runs (their own subscriptions answer), for host.cmd
// and for ids a peer reported, so that every request gets exactly one reply.
func (a *Agent) serveUnknown(nc *nats.Conn) ([]*nats.Subscription, error) {
	lic := a.cfg.Agent.LicenseID
	peers := a.peers
	hb, err := nc.Subscribe(wire.HeartbeatSubject(lic), func(m *nats.Msg) { peers.heartbeat(m.Data) })
	if err != nil {
		return nil, fmt.Errorf("subscribe %s: %w", wire.HeartbeatSubject(lic), err)
	}
	subs := []*nats.Subscription{hb}
	answer := func(m *nats.Msg) {
		id := instanceToken(m.Subject)
		if m.Reply == "" || (id == "host" && m.Subject == wire.HostCmdSubject(lic)) {
			return
		}
		if a.lookup(id) != nil || peers.known(id) {
			return
		}
		respond(nc, m, nil, wire.UnknownInstance(id, a.instanceIDs()))
	}
	for _, subject := range []string{wire.CmdSubject(lic, "*"), wire.FilesCmdSubject(lic, "*")} {
		s, err := nc.Subscribe(subject, answer)
		if err != nil {
			for _, s := range subs {
				_ = s.Unsubscribe()
			}
			return nil, fmt.Errorf("subscribe %s: %w", subject, err)
		}
		subs = append(subs, s)
	}
	return subs, nil
}

// instanceIDs lists the ids this agent runs: agent.toml's in config
// order, then the created ones.
func (a *Agent) instanceIDs() []string {
	insts := a.list()
	ids := make([]string, 0, len(insts))
	for _, inst := range insts {
		ids = append(ids, inst.conf().ID)
	}
	return ids
}
