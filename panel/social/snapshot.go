package social

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Snapshot is one ether node's health snapshot as published on
// {cluster}.health.{node} (docs/ether.md, "Health and metrics"). The panel
// may not import ether (DESIGN.md section 2), so it decodes the JSON with
// its own struct; a test checks it against a real node's snapshot.
type Snapshot struct {
	Node               int               `json:"node"`
	Cluster            string            `json:"cluster"`
	Instance           string            `json:"instance"` // the node process's random id (changes on restart)
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
	Peers              []int             `json:"peers"`
	LoginLock          string            `json:"login_lock"` // "ok" or "unavailable: <why>"
	LoginLockReplicas  int               `json:"login_lock_replicas"`
}

// Limits on what a snapshot may carry; anything on NATS may publish on a
// health subject, so the decoder refuses the absurd rather than storing it.
const (
	MaxSnapshotBytes = 16 << 10
	maxDropCauses    = 32
	maxTextLen       = 512
)

// The world link states a snapshot may report.
const (
	LinkUp   = "up"
	LinkDown = "down"
)

// ErrNotHealth is returned for a subject that is not {cluster}.health.{node}.
var ErrNotHealth = errors.New("not a health subject")

var clusterRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ParseHealthSubject splits {cluster}.health.{node}.
func ParseHealthSubject(subject string) (cluster string, node int, err error) {
	parts := strings.Split(subject, ".")
	if len(parts) != 3 || parts[1] != "health" || !clusterRE.MatchString(parts[0]) {
		return "", 0, fmt.Errorf("%w: %q", ErrNotHealth, subject)
	}
	node, err = strconv.Atoi(parts[2])
	if err != nil || node < 1 || node > 255 || strconv.Itoa(node) != parts[2] {
		return "", 0, fmt.Errorf("%w: %q: node must be 1-255", ErrNotHealth, subject)
	}
	return parts[0], node, nil
}

// DecodeSnapshot decodes and checks a health message received on subject:
// the JSON's cluster and node must be the subject's, the world link up or
// down, counts non-negative and texts bounded.
func DecodeSnapshot(subject string, data []byte) (Snapshot, error) {
	cluster, node, err := ParseHealthSubject(subject)
	if err != nil {
		return Snapshot{}, err
	}
	if len(data) > MaxSnapshotBytes {
		return Snapshot{}, fmt.Errorf("health snapshot on %s: %d bytes, more than %d", subject, len(data), MaxSnapshotBytes)
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
func (s *Snapshot) LoginLockOK() bool { return s.LoginLock == "ok" }

// pmCount and loginChecks are the counters the page turns into rates.
func (s *Snapshot) pmCount() uint64     { return s.PMsDelivered + s.PMsDropped }
func (s *Snapshot) loginChecks() uint64 { return s.LoginChecksAllowed + s.LoginChecksDenied }
