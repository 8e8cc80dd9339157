package ui

import (
	"strconv"
	"time"
)

// HostPage is a host page's data.
type HostPage struct {
	Row         HostRow
	OS          string // "linux/amd64"
	AgentCommit string
	Cores       string // "8", "—"
	Interval    string // observed heartbeat interval, "10 s"
	FirstSeen   time.Time
	LastBeat    time.Time
	Charts      []Chart
	ProbeAt     time.Time // zero: no probe report
	Probes      []ProbeRow
	Instances   []InstanceRow
	Since       int64 // render time, Unix ms
	// Impossible names what the last heartbeat reported that cannot be
	// (shown clamped): "cpu -55.5 %; memory used 9000 MB of 8000 MB".
	Impossible string
	// ClockSkew is how far the agent's clock is off when beyond the
	// panel's bound ("2 h 5 min ahead"); empty within it.
	ClockSkew string
}

// Chart is one telemetry chart over the kept history.
type Chart struct {
	ID     string // "cpu", "mem", "disk"
	Title  string // "CPU"
	Unit   string // "%"
	Max    float64
	Values []float64
	Latest string // the newest value with its unit
	From   time.Time
	To     time.Time     // the newest sample's time: Latest's
	Bucket time.Duration // each point is the maximum over this long; 0: one point per sample
}

// ChartWindow says what each of a chart's points is, in words.
func (c Chart) ChartWindow() string {
	if c.Bucket <= 0 {
		return "one point per heartbeat"
	}
	if c.Bucket >= time.Minute {
		return "each point the peak of " + Duration(c.Bucket.Round(time.Minute))
	}
	return "each point the peak of " + Duration(c.Bucket)
}

// Ticks are the y axis's labels, top first.
func (c Chart) Ticks() []string {
	return []string{strconv.FormatFloat(c.Max, 'f', -1, 64) + " " + c.Unit, strconv.FormatFloat(c.Max/2, 'f', -1, 64) + " " + c.Unit, "0 " + c.Unit}
}

// ProbeRow is one probe target of the last heartbeat.
type ProbeRow struct {
	Name    string
	Target  string // host:port
	OK      bool
	Latency string // "1.2 ms"
	Error   string
}

// InstanceRow is one instance in a host's table.
type InstanceRow struct {
	License    string
	ID         string
	Label      string
	Game       string
	State      string
	HostOnline bool
	Stale      string
	Uptime     string
	CrashCount int
	PID        int
	CPU        string
	RSS        string
	CanAct     bool
	Why        string // why CanAct is false
}

// EventLayout tells a host page an instance appeared or disappeared: its
// instance table fetches itself again (after ingest has written it).
const EventLayout = "layout"

// Host page event names.
func EventHostFacts(license string) string  { return "hostfacts-" + license }
func EventHostBeat(license string) string   { return "beat-" + license }
func EventHostProbes(license string) string { return "probes-" + license }
