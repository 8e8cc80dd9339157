package ui

import "time"

// InstanceOverview is the instance overview tab's data.
type InstanceOverview struct {
	Head     InstanceHead
	Details  InstanceDetails
	Timeline []TimelineRow
	Since    int64 // render time, Unix ms
}

// InstanceDetails are the live numbers of the overview.
type InstanceDetails struct {
	State       string
	HostOnline  bool
	Stale       string
	StateSince  time.Time
	Uptime      string // "3 h 12 min", "—" when not running
	CrashCount  int
	PID         int
	CPU         string
	RSS         string
	LastMessage string
}

// TimelineRow is one state event, newest first.
type TimelineRow struct {
	At         time.Time
	State      string
	ExitCode   string // "" when none
	PID        int
	CrashCount int
	Message    string
}

// Instance overview event names.
func EventInstanceDetails(instance string) string  { return "ov-" + instance }
func EventInstanceTimeline(instance string) string { return "tl-" + instance }
