package ether

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/corrosion/corrosion/internal/buildinfo"
)

// Health is the snapshot a node publishes every health interval on
// {cluster}.health.{node} (and serves at /health on --metrics-listen).
// Totals count since the node started; rates are over the last interval.
type Health struct {
	Node               uint8             `json:"node"`
	Cluster            string            `json:"cluster"`
	Instance           string            `json:"instance"`
	Version            string            `json:"version"`
	Time               time.Time         `json:"time"`
	UptimeSeconds      float64           `json:"uptime_s"`
	WorldLink          string            `json:"world_link"` // "up" or "down"
	Sessions           int               `json:"sessions"`
	FramesInPerSec     float64           `json:"frames_in_per_s"`
	FramesOutPerSec    float64           `json:"frames_out_per_s"`
	FramesDropped      uint64            `json:"frames_dropped"`
	FramesMalformed    uint64            `json:"frames_malformed"`
	PMsDelivered       uint64            `json:"pms_delivered"`
	PMsDropped         uint64            `json:"pms_dropped"`
	PMsDroppedBy       map[string]uint64 `json:"pms_dropped_by"`
	LoginChecksAllowed uint64            `json:"login_checks_allowed"`
	LoginChecksDenied  uint64            `json:"login_checks_denied"`
	DBUp               bool              `json:"db_up"`
	DBRTTMillis        float64           `json:"db_rtt_ms"`
	DBPendingWrites    int               `json:"db_pending_writes"`
	NATSConnected      bool              `json:"nats_connected"`
	NATSRTTMillis      float64           `json:"nats_rtt_ms"`
	Peers              NodeIDs           `json:"peers"`
	LoginLock          string            `json:"login_lock"`          // "ok" or "unavailable: <why>"
	LoginLockReplicas  int               `json:"login_lock_replicas"` // of the lock's bucket; 0 until it exists
}

// NodeIDs is a list of node ids that marshals as a JSON array of numbers
// ([11,12]), not as the base64 string encoding/json makes of a []uint8.
type NodeIDs []uint8

// MarshalJSON writes the ids as an array of numbers.
func (ids NodeIDs) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+4*len(ids))
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(id), 10)
	}
	return append(b, ']'), nil
}

// healthRates remembers the previous frame counts to compute rates.
type healthRates struct {
	mu      sync.Mutex
	at      time.Time // guarded by mu
	in, out uint64    // guarded by mu
}

// Health takes a snapshot now.
func (n *Node) Health() Health {
	ls := n.link.Stats()
	ss := n.sessions.Stats()
	now := time.Now()
	h := Health{
		Node: n.cfg.NodeID, Cluster: n.cfg.ClusterName, Instance: n.member.Instance(),
		Version: buildinfo.Get().Version, Time: now.UTC(), UptimeSeconds: now.Sub(n.started).Seconds(),
		WorldLink: "down", Sessions: ss.Sessions,
		FramesDropped: ls.Dropped, FramesMalformed: ls.Malformed,
		PMsDelivered: ss.PMDelivered, PMsDropped: ss.PMDroppedTotal(), PMsDroppedBy: ss.PMDropped,
		LoginChecksAllowed: ss.LoginAllowed, LoginChecksDenied: ss.LoginDenied,
		DBUp: n.store.Up(), DBRTTMillis: millis(n.store.RTT()), DBPendingWrites: n.store.Pending(),
		NATSConnected: n.member.Connected(), Peers: n.member.Peers(),
	}
	lock := n.member.LockState()
	h.LoginLock, h.LoginLockReplicas = lock.String(), lock.Replicas
	if n.link.Up() {
		h.WorldLink = "up"
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
	t := time.NewTicker(n.cfg.HealthEvery)
	defer t.Stop()
	for {
		if n.member.Connected() {
			b, _ := json.Marshal(n.Health())
			if err := n.member.Publish("health."+itoa(n.cfg.NodeID), b); err != nil {
				n.log.Debug("health snapshot not published", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func itoa(v uint8) string { return strconv.Itoa(int(v)) }
