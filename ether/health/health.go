// Package health is an ether node's health snapshot: its JSON type, the
// NATS subject it is published on ({cluster}.health.{node}) and the checked
// decoder its readers use. ether publishes it and the panel decodes it with
// this one type; of ours it imports only ether/proto.
package health

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
)

// Snapshot is the health a node publishes every health interval on
// Subject(cluster, node), and serves at /health on --metrics-listen
// (docs/ether.md, "Health and metrics"). Totals count since the node
// started; rates are over the last interval.
type Snapshot struct {
	Node               int               `json:"node"` // 1-255
	Cluster            string            `json:"cluster"`
	Instance           string            `json:"instance"` // the node process's random id (changes on restart)
	Version            string            `json:"version"`
	Time               time.Time         `json:"time"`
	UptimeSeconds      float64           `json:"uptime_s"`
	WorldLink          string            `json:"world_link"` // LinkUp or LinkDown
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
	Peers              []int             `json:"peers"`               // node ids of the other nodes seen alive, in order
	LoginLock          string            `json:"login_lock"`          // LockOK or "unavailable: <why>"
	LoginLockReplicas  int               `json:"login_lock_replicas"` // of the lock's bucket; 0 until it exists
	Agent              *Agent            `json:"agent,omitempty"`     // who runs the node; nil: not run by a Corrosion agent
	World              *World            `json:"world,omitempty"`     // who its world says it is (last WorldInfo); nil: not told
}

// World is what the node's world told it about itself (ether/proto's
// WorldInfo): the license and instance its agent runs it as (empty: not
// run by an agent) and the URL of its browser client (empty: none).
type World struct {
	License   string `json:"license_id,omitempty"`
	Instance  string `json:"instance_id,omitempty"`
	PublicURL string `json:"public_url,omitempty"`
}

// Check reports the first field that is not what a world may say (the
// rule of the WorldInfo it came in, ether/proto).
func (w *World) Check() error {
	return proto.WorldInfo{License: []byte(w.License), Instance: []byte(w.Instance), PublicURL: []byte(w.PublicURL)}.Check()
}

// Agent names the agent instance a node runs as, as the agent told the
// process (CORROSION_LICENSE_ID and CORROSION_INSTANCE_ID, docs/agent.md).
// The panel attributes a node to a license by this, never by a name.
type Agent struct {
	License  string `json:"license_id"`
	Instance string `json:"instance_id"`
}

// Check reports the first id that cannot be an agent's license or
// instance id (the one rule, ether/proto's).
func (a *Agent) Check() error { return proto.CheckAgentIDs(a.License, a.Instance) }

// The world link states a snapshot may report, and the login lock's
// working state.
const (
	LinkUp   = "up"
	LinkDown = "down"
	LockOK   = "ok"
)

// Limits on what a snapshot may carry; anything on NATS may publish on a
// health subject, so the decoder refuses the absurd rather than keep it.
const (
	MaxBytes      = 16 << 10
	maxDropCauses = 32
	maxTextLen    = 512
)

// Wildcard matches the health subject of every node of every cluster.
const Wildcard = "*.health.*"

// ErrNotHealth is returned for a subject that is not {cluster}.health.{node}.
var ErrNotHealth = errors.New("not a health subject")

// ClusterName is what a cluster name may be: one NATS subject token.
var ClusterName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Subject is the subject node of cluster publishes its snapshots on.
func Subject(cluster string, node int) string {
	return cluster + ".health." + strconv.Itoa(node)
}

// ParseSubject splits {cluster}.health.{node}.
func ParseSubject(subject string) (cluster string, node int, err error) {
	parts := strings.Split(subject, ".")
	if len(parts) != 3 || parts[1] != "health" || !ClusterName.MatchString(parts[0]) {
		return "", 0, fmt.Errorf("%w: %q", ErrNotHealth, subject)
	}
	node, err = strconv.Atoi(parts[2])
	if err != nil || node < 1 || node > 255 || strconv.Itoa(node) != parts[2] {
		return "", 0, fmt.Errorf("%w: %q: node must be 1-255", ErrNotHealth, subject)
	}
	return parts[0], node, nil
}

// Decode decodes and checks a snapshot received on subject: the JSON's
// cluster and node must be the subject's, the world link up or down, counts
// non-negative and texts bounded.
func Decode(subject string, data []byte) (Snapshot, error) {
	cluster, node, err := ParseSubject(subject)
	if err != nil {
		return Snapshot{}, err
	}
	if len(data) > MaxBytes {
		return Snapshot{}, fmt.Errorf("health snapshot on %s: %d bytes, more than %d", subject, len(data), MaxBytes)
	}
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		return Snapshot{}, fmt.Errorf("health snapshot on %s: %w", subject, err)
	}
	if err := s.check(cluster, node); err != nil {
		return Snapshot{}, fmt.Errorf("health snapshot on %s: %w", subject, err)
	}
	return s, nil
}

func (s *Snapshot) check(cluster string, node int) error {
	switch {
	case s.Cluster != cluster:
		return fmt.Errorf("cluster %q is not the subject's %q", s.Cluster, cluster)
	case s.Node != node:
		return fmt.Errorf("node %d is not the subject's %d", s.Node, node)
	case s.WorldLink != LinkUp && s.WorldLink != LinkDown:
		return fmt.Errorf("world_link %q is neither up nor down", s.WorldLink)
	case s.Sessions < 0 || s.DBPendingWrites < 0 || s.LoginLockReplicas < 0 || s.UptimeSeconds < 0:
		return errors.New("negative count")
	case len(s.PMsDroppedBy) > maxDropCauses:
		return fmt.Errorf("%d drop causes, more than %d", len(s.PMsDroppedBy), maxDropCauses)
	case len(s.Version) > maxTextLen || len(s.LoginLock) > maxTextLen || len(s.Instance) > maxTextLen:
		return errors.New("text field too long")
	case len(s.Peers) > 255:
		return errors.New("more than 255 peers")
	}
	if s.Agent != nil {
		if err := s.Agent.Check(); err != nil {
			return fmt.Errorf("agent: %w", err)
		}
	}
	if s.World != nil {
		if err := s.World.Check(); err != nil {
			return fmt.Errorf("world: %w", err)
		}
	}
	for cause := range s.PMsDroppedBy {
		if len(cause) > 64 {
			return errors.New("drop cause name too long")
		}
	}
	for _, p := range s.Peers {
		if p < 1 || p > 255 {
			return fmt.Errorf("peer %d is not a node id", p)
		}
	}
	return nil
}

// LoginLockOK reports whether the cluster-wide login lock works.
func (s *Snapshot) LoginLockOK() bool { return s.LoginLock == LockOK }

// PMCount and LoginChecks are the counters a reader turns into rates.
func (s *Snapshot) PMCount() uint64     { return s.PMsDelivered + s.PMsDropped }
func (s *Snapshot) LoginChecks() uint64 { return s.LoginChecksAllowed + s.LoginChecksDenied }
