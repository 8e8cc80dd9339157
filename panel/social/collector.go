package social

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/ether/cluster"
	"github.com/corrosion/corrosion/ether/health"
	"github.com/corrosion/corrosion/panel/liveness"
)

// The subjects the collector listens on: every cluster's health snapshots
// and clean-stop beacons ({cluster}.node.{node}.down, docs/ether.md).
const (
	HealthSubjects = health.Wildcard
	DownSubjects   = cluster.DownWildcard
)

// Timing of the down rule.
const (
	DefaultInterval = 5 * time.Second  // ether's default --health-interval, until a gap is observed
	minInterval     = time.Second      // clamp of the observed gap
	maxInterval     = 10 * time.Minute // clamp of the observed gap
	ForgetAfter     = 24 * time.Hour   // a node silent this long is dropped from the page
	MaxNodes        = 1024             // nodes tracked at most; snapshots of further nodes are refused
)

// ErrTooManyNodes is returned when a snapshot would track more than MaxNodes.
var ErrTooManyNodes = errors.New("too many ether nodes tracked")

// Collector keeps the last health snapshot of every ether node it hears
// on NATS (one per panel replica: plain subscriptions, not a queue group).
// Methods are safe for concurrent use.
type Collector struct {
	log   *slog.Logger
	conn  atomic.Pointer[nats.Conn] // the connection Run listens on; nil before Run
	mu    sync.Mutex
	nodes map[nodeKey]*nodeState // guarded by mu
	bad   uint64                 // guarded by mu: messages refused
}

type nodeKey struct {
	cluster string
	node    int
}

// nodeState is what the collector remembers of one node.
type nodeState struct {
	snap          health.Snapshot
	received      time.Time     // when the last snapshot arrived
	interval      time.Duration // the shortest gap between snapshots of one process; DefaultInterval until seen
	intervalSeen  bool          // interval was observed, not assumed
	pmRate        float64       // PMs per second between the last two snapshots
	loginRate     float64       // login checks per second, same
	ratesKnown    bool          // false until two snapshots of one process
	linkDownSince time.Time     // zero while the world link is up
	stoppedAt     time.Time     // a clean-stop beacon after the last snapshot; zero if none
}

// NewCollector returns an empty collector.
func NewCollector(log *slog.Logger) *Collector {
	if log == nil {
		log = slog.Default()
	}
	return &Collector{log: log.With("component", "social"), nodes: make(map[nodeKey]*nodeState)}
}

// Run subscribes to every cluster's health subjects on nc and feeds the
// collector until ctx ends, then unsubscribes.
func (c *Collector) Run(ctx context.Context, nc *nats.Conn) error {
	handler := func(m *nats.Msg) {
		if err := c.Observe(m.Subject, m.Data, time.Now()); err != nil {
			c.log.Debug("ether message refused", "subject", m.Subject, "err", err)
		}
	}
	var subs []*nats.Subscription
	for _, subj := range []string{HealthSubjects, DownSubjects} {
		sub, err := nc.Subscribe(subj, handler)
		if err != nil {
			for _, s := range subs {
				_ = s.Unsubscribe()
			}
			return fmt.Errorf("subscribe %s: %w", subj, err)
		}
		subs = append(subs, sub)
	}
	c.conn.Store(nc)
	<-ctx.Done()
	c.conn.Store(nil)
	for _, s := range subs {
		_ = s.Unsubscribe()
	}
	return nil
}

// Observe takes one message from a health or clean-stop subject, received
// at now.
func (c *Collector) Observe(subject string, data []byte, now time.Time) error {
	var err error
	if strings.HasSuffix(subject, ".down") {
		err = c.observeDown(subject, data, now)
	} else {
		err = c.observeHealth(subject, data, now)
	}
	if err != nil {
		c.mu.Lock()
		c.bad++
		c.mu.Unlock()
	}
	return err
}

func (c *Collector) observeHealth(subject string, data []byte, now time.Time) error {
	s, err := health.Decode(subject, data)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := nodeKey{s.Cluster, s.Node}
	st, ok := c.nodes[k]
	if !ok {
		c.forgetLocked(now)
		if len(c.nodes) >= MaxNodes {
			return fmt.Errorf("node %d of %s: %w (%d)", s.Node, s.Cluster, ErrTooManyNodes, MaxNodes)
		}
		st = &nodeState{interval: DefaultInterval}
		c.nodes[k] = st
	}
	st.update(s, now)
	return nil
}

// update folds a new snapshot into the node's state: interval, rates from
// counter deltas (none across a restart), and world-link transitions. A
// snapshot of a process that has sent its clean-stop beacon is ignored.
func (st *nodeState) update(s health.Snapshot, now time.Time) {
	prev, hadPrev := st.snap, !st.received.IsZero()
	sameProcess := hadPrev && prev.Instance == s.Instance
	if sameProcess && !st.stoppedAt.IsZero() {
		// The stopped process's last snapshot, handled after its beacon
		// (ether publishes both as it stops, and they come through separate
		// subscriptions): it does not bring the node back. A new process does.
		return
	}
	gap := s.Time.Sub(prev.Time)
	if sameProcess && gap > 0 {
		// The node's own clock spaces its snapshots by its interval; a
		// missed publish only lengthens a gap, so the shortest gap of the
		// process is its interval.
		gap = min(max(gap, minInterval), maxInterval)
		if !st.intervalSeen || gap < st.interval {
			st.interval, st.intervalSeen = gap, true
		}
	}
	st.ratesKnown = false
	counting := sameProcess && s.PMCount() >= prev.PMCount() && s.LoginChecks() >= prev.LoginChecks()
	if dt := s.Time.Sub(prev.Time).Seconds(); counting && dt > 0 {
		st.pmRate = float64(s.PMCount()-prev.PMCount()) / dt
		st.loginRate = float64(s.LoginChecks()-prev.LoginChecks()) / dt
		st.ratesKnown = true
	}
	switch {
	case s.WorldLink == health.LinkUp:
		st.linkDownSince = time.Time{}
	case st.linkDownSince.IsZero():
		st.linkDownSince = now
	}
	st.snap, st.received, st.stoppedAt = s, now, time.Time{}
}

func (c *Collector) observeDown(subject string, data []byte, now time.Time) error {
	name, b, err := cluster.DecodeDown(subject, data)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Only a node we know, and only its current process: a late beacon of
	// a process already replaced must not mark the new one down.
	if st, ok := c.nodes[nodeKey{name, int(b.Node)}]; ok && st.snap.Instance == b.Instance {
		st.stoppedAt = now
	}
	return nil
}

// forgetLocked drops nodes silent for longer than ForgetAfter.
func (c *Collector) forgetLocked(now time.Time) {
	for k, st := range c.nodes {
		if now.Sub(st.received) > ForgetAfter {
			delete(c.nodes, k)
		}
	}
}

// NodeStatus is one node as the page shows it at a moment.
type NodeStatus struct {
	Cluster       string
	Node          int
	Snap          health.Snapshot // the last snapshot (read-only)
	Received      time.Time
	Interval      time.Duration
	Down          bool      // silent for liveness.Factor × Interval, or stopped cleanly
	Stopped       bool      // a clean-stop beacon came after the last snapshot
	DownSince     time.Time // the last snapshot, or the beacon
	PMRate        float64
	LoginRate     float64
	RatesKnown    bool
	LinkDownSince time.Time
}

// Nodes returns every tracked node at now, by cluster and node id.
func (c *Collector) Nodes(now time.Time) []NodeStatus {
	c.mu.Lock()
	out := make([]NodeStatus, 0, len(c.nodes))
	for k, st := range c.nodes {
		out = append(out, st.status(k, now))
	}
	c.mu.Unlock()
	slices.SortFunc(out, func(a, b NodeStatus) int {
		if a.Cluster != b.Cluster {
			return strings.Compare(a.Cluster, b.Cluster)
		}
		return a.Node - b.Node
	})
	return out
}

func (st *nodeState) status(k nodeKey, now time.Time) NodeStatus {
	ns := NodeStatus{Cluster: k.cluster, Node: k.node, Snap: st.snap, Received: st.received, Interval: st.interval,
		PMRate: st.pmRate, LoginRate: st.loginRate, RatesKnown: st.ratesKnown, LinkDownSince: st.linkDownSince}
	switch {
	case !st.stoppedAt.IsZero():
		ns.Down, ns.Stopped, ns.DownSince = true, true, st.stoppedAt
	case liveness.Silent(st.received, st.interval, now):
		ns.Down, ns.DownSince = true, st.received
	}
	return ns
}

// Listening reports whether the collector is subscribed over a connected
// NATS connection: when it is not, no snapshot can arrive and every node
// only looks silent.
func (c *Collector) Listening() bool {
	nc := c.conn.Load()
	return nc != nil && nc.IsConnected()
}

// Refused is how many messages the collector refused (bad subject or JSON).
func (c *Collector) Refused() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bad
}

// PublicURL is the browser client URL the world instance (license,
// instance) last reported to its sidecar, as the freshest snapshot naming
// that world carries it; "" when no node reports one (the panel then shows
// no link rather than guess).
func (c *Collector) PublicURL(license, instance string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var url string
	var at time.Time
	for _, st := range c.nodes {
		w := st.snap.World
		if w != nil && w.License == license && w.Instance == instance && st.received.After(at) {
			url, at = w.PublicURL, st.received
		}
	}
	return url
}
