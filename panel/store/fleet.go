package store

import (
	"encoding/json"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/liveness"
)

// The offline rule's bounds (docs/wire-protocol.md: a host is offline when
// its last heartbeat is older than three heartbeat intervals).
const (
	// MinInterval and MaxInterval clamp the observed heartbeat interval.
	MinInterval = 5 * time.Second
	MaxInterval = 600 * time.Second
	// DefaultInterval is assumed until the interval has been observed.
	DefaultInterval = 60 * time.Second
)

// ClampInterval bounds an observed heartbeat interval to MinInterval …
// MaxInterval; zero (not yet observed) is DefaultInterval.
func ClampInterval(d time.Duration) time.Duration {
	switch {
	case d <= 0:
		return DefaultInterval
	case d < MinInterval:
		return MinInterval
	case d > MaxInterval:
		return MaxInterval
	}
	return d
}

// HostOnline is THE offline rule, the one every page uses: a host is online
// when it has sent a heartbeat, that heartbeat is no older than
// liveness.Factor × its observed interval at now, and no going_offline
// beacon arrived after it. goingOffline is zero when there is no beacon.
func HostOnline(lastHeartbeat time.Time, interval time.Duration, goingOffline, now time.Time) bool {
	if lastHeartbeat.IsZero() {
		return false
	}
	if !goingOffline.IsZero() && !goingOffline.Before(lastHeartbeat) {
		return false
	}
	return !liveness.Silent(lastHeartbeat, ClampInterval(interval), now)
}

// Host is one license (one agent's host) with its latest state.
type Host struct {
	License string // panel_licenses.id, the wire protocol's license_id
	Label   string // the admin's label for the license
	// Seen is false for a license that has not sent a heartbeat yet; every
	// field below but Counts is then zero.
	Seen          bool
	Hostname      string
	AgentVersion  string
	AgentCommit   string
	OS            string
	Arch          string
	CPUPercent    *float64 // nil: not measured
	CPUCores      *int
	MemTotalMB    *int64
	MemUsedMB     *int64
	DiskTotalMB   *int64 // summed over the heartbeat's disks
	DiskFreeMB    *int64
	FirstSeen     time.Time
	LastHeartbeat time.Time     // when the panel received it
	Interval      time.Duration // observed heartbeat interval (DefaultInterval until known)
	GoingOffline  time.Time     // the last going_offline beacon; zero: none since the last heartbeat
	// Impossible names the values of the last heartbeat that cannot be
	// (clamped in the fields above); ClockSkew is how far the agent's
	// clock was ahead of the panel's (negative: behind) when beyond
	// MaxClockSkew, 0 otherwise (HostFromHeartbeat).
	Impossible []string
	ClockSkew  time.Duration
	// PublicAddress is where the host says players reach it ([agent]
	// public_address; "" none): the one address the inbound probe tries.
	PublicAddress string
	// Online is HostOnline at the time of the read.
	Online bool
	// Counts is the number of the host's instances in each state.
	Counts map[wire.State]int
	// Samples are the last HostFilter.Spark samples, oldest first (Hosts
	// only).
	Samples []Sample
	// Probe is the stored heartbeat's probe report (Host only; nil: none).
	Probe *wire.ProbeReport
	// Heartbeat is a recent heartbeat as received (Host only): the whole
	// heartbeat is stored at most once per sample bucket (10 s), the
	// fields above on every one.
	Heartbeat json.RawMessage
}

// OnlineAt applies HostOnline to h at now.
func (h Host) OnlineAt(now time.Time) bool {
	return HostOnline(h.LastHeartbeat, h.Interval, h.GoingOffline, now)
}

// Instance is one instance's latest state.
type Instance struct {
	License       string
	ID            string
	Game          string
	Label         string
	State         wire.State
	PID           int   // 0: no process
	UptimeSeconds int64 // as of UpdatedAt (telemetry is refreshed once per sample bucket; state at once)
	CrashCount    int
	CPUPercent    *float64 // of one CPU; nil: not running or not measured
	RSSMB         *int64
	StateSince    time.Time // when State began (agent clock)
	UpdatedAt     time.Time // the agent timestamp of the newest report applied
	LastMessage   string    // the last status event's message
	// Ports are the ports the instance declares (saneProvision: checked;
	// read by Store.Instance only);
	// Build its installed build and AvailableBuild the newest one its last
	// update_check saw ("" unknown).
	Ports          []wire.BoundPortInfo
	Build          string
	AvailableBuild string
	// The panel's last inbound probe of the instance (zero ProbeAt: none):
	// its verdict (reach.Verdict) and the player count of its A2S answer.
	ProbeAt      time.Time
	ProbeVerdict string
	ProbePlayers *int
}

// UpdateAvailable reports whether the agent saw a newer build than the
// installed one.
func (in Instance) UpdateAvailable() bool {
	return in.Build != "" && in.AvailableBuild != "" && in.AvailableBuild != in.Build
}

// Event is one status event of an instance's timeline.
type Event struct {
	ID         int64
	License    string
	Instance   string
	At         time.Time // the agent's timestamp
	State      wire.State
	ExitCode   *int
	PID        int
	CrashCount int
	Message    string
}

// Sample is one point of a host's telemetry history.
type Sample struct {
	At          time.Time
	CPUPercent  *float64
	MemUsedMB   *int64
	MemTotalMB  *int64
	DiskFreeMB  *int64
	DiskTotalMB *int64
}

// UnknownLicense is a license id heartbeats arrived from that no admin has
// created (or that is disabled).
type UnknownLicense struct {
	License   string
	FirstSeen time.Time
	LastSeen  time.Time
	Messages  int64 // heartbeats and other messages counted
	Hostname  string
}

// Liveness selects hosts by the offline rule.
type Liveness string

// The liveness filters.
const (
	AnyLiveness Liveness = ""
	OnlineOnly  Liveness = "online"
	OfflineOnly Liveness = "offline"
)

// HostFilter selects hosts for Hosts.
type HostFilter struct {
	// Licenses limits the result to these licenses; nil means all (an
	// admin), empty non-nil means none.
	Licenses []string
	// Search matches license, label, hostname or agent version (case-
	// insensitive substring).
	Search string
	// State keeps online or offline hosts only.
	State Liveness
	// Spark is how many recent samples to return per host (0: none): at
	// most that many, from the last Spark+1 sample buckets before Now (a
	// host silent for longer has none).
	Spark int
	// Now is the time the offline rule is applied at; zero: time.Now().
	Now time.Time
}
