package ether

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/corrosion/corrosion/ether/health"
	"github.com/corrosion/corrosion/internal/buildinfo"
	"github.com/corrosion/corrosion/internal/ctxtime"
)

// healthRates remembers the previous frame counts to compute rates.
type healthRates struct {
	mu      sync.Mutex
	at      time.Time // guarded by mu
	in, out uint64    // guarded by mu
}

// Health takes a snapshot now (ether/health is its type, shared with the
// panel that reads it).
func (n *Node) Health() health.Snapshot {
	ls := n.link.Stats()
	ss := n.sessions.Stats()
	now := time.Now()
	h := health.Snapshot{
		Node: int(n.cfg.NodeID), Cluster: n.cfg.ClusterName, Instance: n.member.Instance(),
		Version: buildinfo.Get().Version, Time: now.UTC(), UptimeSeconds: now.Sub(n.started).Seconds(),
		WorldLink: health.LinkDown, Sessions: ss.Sessions,
		FramesDropped: ls.Dropped, FramesMalformed: ls.Malformed,
		PMsDelivered: ss.PMDelivered, PMsDropped: ss.PMDroppedTotal(), PMsDroppedBy: ss.PMDropped,
		LoginChecksAllowed: ss.LoginAllowed, LoginChecksDenied: ss.LoginDenied,
		DBUp: n.store.Up(), DBRTTMillis: millis(n.store.RTT()), DBPendingWrites: n.store.Pending(),
		NATSConnected: n.member.Connected(), Peers: nodeIDs(n.member.Peers()), Agent: n.cfg.Agent(),
		World: n.world.Load(),
	}
	lock := n.member.LockState()
	h.LoginLock, h.LoginLockReplicas = lock.String(), lock.Replicas
	if n.link.Up() {
		h.WorldLink = health.LinkUp
	}
	if h.NATSConnected {
		if rtt, err := n.member.RTT(); err == nil {
			h.NATSRTTMillis = millis(rtt)
		}
	}
	n.health.mu.Lock()
	if dt := now.Sub(n.health.at).Seconds(); !n.health.at.IsZero() && dt > 0 {
		h.FramesInPerSec = float64(ls.FramesIn-n.health.in) / dt
		h.FramesOutPerSec = float64(ls.FramesOut-n.health.out) / dt
	}
	n.health.at, n.health.in, n.health.out = now, ls.FramesIn, ls.FramesOut
	n.health.mu.Unlock()
	return h
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// healthLoop publishes a snapshot at start and every health interval.
func (n *Node) healthLoop(ctx context.Context) error {
	ctxtime.NowAndEvery(ctx, n.cfg.HealthEvery, n.publishHealth)
	return nil
}

// publishHealth publishes one snapshot while the cluster is connected.
func (n *Node) publishHealth(context.Context) {
	if !n.member.Connected() {
		return
	}
	b, _ := json.Marshal(n.Health())
	if err := n.member.PublishHealth(b); err != nil {
		n.log.Debug("health snapshot not published", "err", err)
	}
}

// nodeIDs widens the cluster's node ids to the snapshot's ints.
func nodeIDs(ids []uint8) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}
