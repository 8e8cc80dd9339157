package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/ether/health"
)

// Heartbeat is the JSON a node publishes on {cluster}.node.{id}.heartbeat
// every heartbeat period, and once on {cluster}.node.{id}.down when it
// stops.
type Heartbeat struct {
	Node     uint8     `json:"node"`
	Instance string    `json:"instance"`
	Started  time.Time `json:"started"`
	Sessions int       `json:"sessions"`
	Leaving  bool      `json:"leaving,omitempty"`
}

// peer is what this node knows of another.
type peer struct {
	instance string    // guarded by liveness.mu
	lastSeen time.Time // guarded by liveness.mu
	up       bool      // guarded by liveness.mu
}

// liveness tracks peers through their heartbeats and reports changes to
// the handler in order, from one goroutine.
type liveness struct {
	m      *Member         // immutable after init
	mu     sync.Mutex      // a leaf: held while sending to events, which never blocks
	peers  map[uint8]*peer // guarded by mu
	events chan event      // immutable after init; to the reporting goroutine (run)
	dupLog time.Time       // guarded by mu: last "duplicate node id" warning
}

type event struct {
	node uint8
	up   bool
}

func (l *liveness) init(m *Member) {
	l.m = m
	l.peers = map[uint8]*peer{}
	l.events = make(chan event, 1024)
}

func (l *liveness) beat(leaving bool) []byte {
	b, _ := json.Marshal(Heartbeat{
		Node: l.m.cfg.NodeID, Instance: l.m.instance, Started: l.m.started,
		Sessions: l.m.Joined(), Leaving: leaving,
	})
	return b
}

func (l *liveness) run(ctx context.Context) {
	hb := l.m.cfg.Heartbeat
	beat := time.NewTicker(hb)
	defer beat.Stop()
	check := time.NewTicker(max(hb/4, 10*time.Millisecond))
	defer check.Stop()
	_ = l.m.nc.Publish(l.m.subj.heartbeat(l.m.cfg.NodeID), l.beat(false))
	for {
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
			if l.m.nc.IsConnected() {
				_ = l.m.nc.Publish(l.m.subj.heartbeat(l.m.cfg.NodeID), l.beat(false))
			}
		case <-check.C:
			l.expire(time.Now())
		case ev := <-l.events:
			l.report(ev)
		}
	}
}

func (l *liveness) report(ev event) {
	if ev.up {
		l.m.log.Info("peer node up", "peer", ev.node)
		l.m.h.NodeUp(ev.node)
	} else {
		l.m.log.Warn("peer node down", "peer", ev.node)
		l.m.h.NodeDown(ev.node)
	}
}

func (l *liveness) emit(node uint8, up bool) {
	select {
	case l.events <- event{node: node, up: up}:
	default:
		l.m.log.Error("peer event queue full; dropping event", "peer", node, "up", up)
	}
}

// expire marks peers silent for longer than the node timeout as down.
func (l *liveness) expire(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, p := range l.peers {
		if p.up && now.Sub(p.lastSeen) > l.m.cfg.NodeTimeout {
			p.up = false
			l.emit(id, false)
		}
	}
}

// DownWildcard matches the clean-stop beacon of every node of every cluster.
const DownWildcard = "*.node.*.down"

// ErrNotBeacon is returned for a subject that is not {cluster}.node.{node}.down
// (or .heartbeat), or a beacon that does not say what it must.
var ErrNotBeacon = errors.New("not a node beacon")

// parseNodeSubject splits {cluster}.node.{node}.{kind}; node is 1-255,
// written without leading zeros.
func parseNodeSubject(subject, kind string) (cluster string, node uint8, err error) {
	parts := strings.Split(subject, ".")
	if len(parts) != 4 || parts[1] != "node" || parts[3] != kind || !health.ClusterName.MatchString(parts[0]) {
		return "", 0, fmt.Errorf("%w: %q", ErrNotBeacon, subject)
	}
	n, err := strconv.ParseUint(parts[2], 10, 8)
	if err != nil || n == 0 || strconv.FormatUint(n, 10) != parts[2] {
		return "", 0, fmt.Errorf("%w: %q: node must be 1-255", ErrNotBeacon, subject)
	}
	return parts[0], uint8(n), nil
}

// DecodeDown decodes and checks the clean-stop beacon received on subject
// ({cluster}.node.{node}.down): its JSON's node must be the subject's and
// leaving set. The peers of the node and the panel read it with this one
// decoder.
func DecodeDown(subject string, data []byte) (cluster string, hb Heartbeat, err error) {
	cluster, node, err := parseNodeSubject(subject, "down")
	if err != nil {
		return "", Heartbeat{}, err
	}
	if len(data) > health.MaxBytes {
		return "", Heartbeat{}, fmt.Errorf("down beacon on %s: too long", subject)
	}
	if err := json.Unmarshal(data, &hb); err != nil {
		return "", Heartbeat{}, fmt.Errorf("down beacon on %s: %w", subject, err)
	}
	if hb.Node != node || !hb.Leaving {
		return "", Heartbeat{}, fmt.Errorf("%w: down beacon on %s: node %d, leaving %v", ErrNotBeacon, subject, hb.Node, hb.Leaving)
	}
	return cluster, hb, nil
}

func (l *liveness) onHeartbeat(msg *nats.Msg) {
	_, id, err := parseNodeSubject(msg.Subject, "heartbeat")
	var hb Heartbeat
	if err != nil || json.Unmarshal(msg.Data, &hb) != nil || hb.Node != id || hb.Instance == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if id == l.m.cfg.NodeID {
		if hb.Instance != l.m.instance && time.Since(l.dupLog) > 10*time.Second {
			l.dupLog = time.Now()
			l.m.log.Error("another ether node in this cluster uses the same node id", "node", id, "other_instance", hb.Instance)
		}
		return
	}
	p := l.peers[id]
	if p == nil {
		p = &peer{}
		l.peers[id] = p
	}
	if p.up && p.instance != hb.Instance { // restarted faster than the timeout
		l.emit(id, false)
		p.up = false
	}
	p.instance, p.lastSeen = hb.Instance, time.Now()
	if !p.up {
		p.up = true
		l.emit(id, true)
	}
}

func (l *liveness) onGoodbye(msg *nats.Msg) {
	_, hb, err := DecodeDown(msg.Subject, msg.Data)
	id := hb.Node
	if err != nil || id == l.m.cfg.NodeID {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := l.peers[id]; p != nil && p.up && p.instance == hb.Instance {
		p.up = false
		l.emit(id, false)
	}
}

// reconnected re-announces every live peer after our own connection came
// back: presence sent while we were away was lost.
func (l *liveness) reconnected() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, p := range l.peers {
		if p.up {
			l.emit(id, true)
		}
	}
}

// Peers lists the nodes currently up, in order.
func (m *Member) Peers() []uint8 { return m.live.upPeers() }

// upPeers lists the peers currently up, in order.
func (l *liveness) upPeers() []uint8 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []uint8
	for id, p := range l.peers {
		if p.up {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
