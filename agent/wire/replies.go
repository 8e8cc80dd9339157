package wire

// Reply payloads, for the panel to decode. Each is sent with the fields of
// Status ("status": "success") added.

// PingReply answers host.cmd ping.
type PingReply struct {
	Version       string `json:"version"`
	Commit        string `json:"commit"`
	UptimeSeconds int64  `json:"uptime_seconds"`
}

// ProbeReply answers host.cmd probe.
type ProbeReply struct {
	Report ProbeReport `json:"report"`
}

// SysinfoReply answers host.cmd sysinfo.
type SysinfoReply struct {
	Snapshot Heartbeat `json:"snapshot"`
}

// InstanceStatus answers the status func, and start, stop, restart and
// kill (the status after the action began, or after it ended with "wait").
type InstanceStatus struct {
	ID            string `json:"id"`
	Game          string `json:"game"`
	Managed       bool   `json:"managed"`
	State         State  `json:"state"`
	UptimeSeconds int64  `json:"uptime_seconds"`
	PID           int    `json:"pid,omitempty"`
	ExitCode      *int   `json:"exit_code,omitempty"`          // of the last run
	CrashCount    int    `json:"crash_count"`                  // since the last manual start
	Busy          string `json:"busy,omitempty"`               // the power action in progress
	RestartIn     *int64 `json:"restart_in_seconds,omitempty"` // a crash restart is pending
	ManualStop    bool   `json:"manual_stop,omitempty"`        // no auto-restart until a manual start
	Adopted       bool   `json:"adopted,omitempty"`            // taken over from a previous agent
	DroppedLines  int64  `json:"console_dropped_lines,omitempty"`
	SkippedBytes  int64  `json:"console_skipped_bytes,omitempty"` // passed over unread while throttled
	Consoles
}

// LogsReply answers the logs func: the most recent lines, oldest first.
type LogsReply struct {
	Lines []ConsoleLine `json:"lines"`
}

// RCONReply answers the rcon func.
type RCONReply struct {
	Output string `json:"output"`
}

// TemplatesReply answers host.cmd templates: the templates this agent
// accepts for instance_create, sorted by id.
type TemplatesReply struct {
	Templates []TemplateInfo `json:"templates"`
}

// TemplateInfo is one template as the panel's New server form needs it
// (docs/templates.md has the meaning of each field).
type TemplateInfo struct {
	ID          string             `json:"id"`
	Name        string             `json:"name"`
	Game        string             `json:"game"`
	Version     int                `json:"version"`
	Description string             `json:"description,omitempty"`
	Variables   []TemplateVariable `json:"variables"`
	Ports       []TemplatePort     `json:"ports"`
}

// TemplateVariable is one variable of a TemplateInfo. A secret's default
// is never sent.
type TemplateVariable struct {
	Key             string   `json:"key"`
	Name            string   `json:"name"`
	Description     string   `json:"description,omitempty"`
	Type            string   `json:"type"`
	Default         string   `json:"default,omitempty"`
	Required        bool     `json:"required,omitempty"`
	Min             *int64   `json:"min,omitempty"`
	Max             *int64   `json:"max,omitempty"`
	MaxLength       int      `json:"max_length,omitempty"`
	Pattern         string   `json:"pattern,omitempty"`
	Options         []string `json:"options,omitempty"`
	Visible         bool     `json:"user_visible"`
	Editable        bool     `json:"user_editable"`
	RestartRequired bool     `json:"restart_required,omitempty"`
}

// TemplatePort is one port of a TemplateInfo: its number is Default, or
// the value of the port variable Variable plus Offset.
type TemplatePort struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol"`
	Default  int    `json:"default,omitempty"`
	Variable string `json:"variable,omitempty"`
	Offset   int    `json:"offset,omitempty"`
}
