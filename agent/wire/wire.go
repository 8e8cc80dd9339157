// Package wire holds the Corrosion Wire Protocol v2 types: NATS subjects,
// the heartbeat, state and console events, requests and replies. The agent
// speaks it and the panel imports it; it imports nothing of ours.
package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Schema is the heartbeat schema version.
const Schema = 2

// State is an instance state (docs/wire-protocol.md).
type State string

// Instance states: managed (an exec is configured) and unmanaged.
const (
	StateRunning     State = "running"
	StateStopped     State = "stopped"
	StateStarting    State = "starting"
	StateStopping    State = "stopping"
	StateCrashed     State = "crashed"
	StateConfigured  State = "configured"   // unmanaged, root exists
	StateMissingRoot State = "missing_root" // unmanaged, root missing
)

// Settled reports whether s is not a transition: anything but starting
// and stopping. A power action that waits ends on a settled state.
func (s State) Settled() bool { return s != StateStarting && s != StateStopping }

// Up reports whether the process is (being) brought up: starting or
// running.
func (s State) Up() bool { return s == StateStarting || s == StateRunning }

// Console streams.
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
	StreamAgent  = "agent"
)

// MaxLineBytes caps one console line.
const MaxLineBytes = 64 << 10

var (
	licenseRE  = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	instanceRE = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)
)

// ValidLicenseID reports whether id can be a license token.
func ValidLicenseID(id string) bool { return licenseRE.MatchString(id) }

// ValidInstanceID reports whether id can be an instance token.
func ValidInstanceID(id string) bool { return instanceRE.MatchString(id) && id != "host" }

// Subjects.
func HeartbeatSubject(license string) string { return "corrosion." + license + ".host.heartbeat" }
func HostCmdSubject(license string) string   { return "corrosion." + license + ".host.cmd" }
func GoingOfflineSubject(license string) string {
	return "corrosion." + license + ".host.going_offline"
}
func CmdSubject(license, instance string) string {
	return "corrosion." + license + "." + instance + ".cmd"
}
func StatusSubject(license, instance string) string {
	return "corrosion." + license + "." + instance + ".status"
}
func ConsoleSubject(license, instance string) string {
	return "corrosion." + license + "." + instance + ".console"
}
func FilesCmdSubject(license, instance string) string {
	return "corrosion." + license + "." + instance + ".files.cmd"
}

// Heartbeat is published on host.heartbeat and returned by sysinfo.
type Heartbeat struct {
	Schema    int              `json:"schema"`
	Timestamp time.Time        `json:"timestamp"`
	Agent     AgentInfo        `json:"agent"`
	Host      HostInfo         `json:"host"`
	Instances []InstanceReport `json:"instances"`
	Probe     *ProbeReport     `json:"probe,omitempty"`
}

// AgentInfo describes the agent build and process.
type AgentInfo struct {
	Version       string `json:"version"`
	Commit        string `json:"commit"`
	BuildTime     string `json:"build_time,omitempty"`
	OS            string `json:"os"`
	Arch          string `json:"arch"`
	UptimeSeconds int64  `json:"uptime_seconds"`
}

// HostInfo is measured host telemetry; what could not be measured is nil
// and omitted.
type HostInfo struct {
	Hostname      string   `json:"hostname,omitempty"`
	CPUPercent    *float64 `json:"cpu_percent,omitempty"`
	CPUCores      *int     `json:"cpu_cores,omitempty"`
	MemTotalMB    *uint64  `json:"mem_total_mb,omitempty"`
	MemUsedMB     *uint64  `json:"mem_used_mb,omitempty"`
	UptimeSeconds *uint64  `json:"uptime_seconds,omitempty"`
	Disks         []Disk   `json:"disks,omitempty"`
	// PublicAddress is where players reach this host (an IP or a DNS
	// name, no port): [agent] public_address. The panel's inbound probe
	// connects there and nowhere else; absent, it probes nothing.
	PublicAddress string `json:"public_address,omitempty"`
}

// Disk is one mounted filesystem.
type Disk struct {
	Mount   string `json:"mount"`
	TotalMB uint64 `json:"total_mb"`
	FreeMB  uint64 `json:"free_mb"`
}

// InstanceReport is one instance in the heartbeat.
type InstanceReport struct {
	ID             string  `json:"id"`
	Game           string  `json:"game"`
	Label          string  `json:"label,omitempty"`
	State          State   `json:"state"`
	UptimeSeconds  int64   `json:"uptime_seconds"`
	PID            int     `json:"pid,omitempty"`
	RootDiskFreeMB *uint64 `json:"root_disk_free_mb,omitempty"`
	// Of the instance's main process while it runs: CPU in percent of one
	// CPU since the previous heartbeat (200 = two CPUs busy) and resident
	// memory. Omitted when not running or not measurable.
	CPUPercent *float64 `json:"cpu_percent,omitempty"`
	RSSMB      *uint64  `json:"rss_mb,omitempty"`
	// Source says who defined the instance: SourceHost (agent.toml; not
	// editable from the panel) or SourcePanel (created through
	// instance_create). Absent from agents older than provisioning.
	Source string `json:"source,omitempty"`
	// Ports are the ports the instance declares (its template's, or
	// agent.toml's [[instance.port]]): the only ones the inbound probe
	// may try.
	Ports []BoundPortInfo `json:"ports,omitempty"`
	// Build is the installed build (a Steam game's manifest buildid);
	// AvailableBuild the newest one the last update_check saw. Either is
	// absent when unknown.
	Build          string `json:"build,omitempty"`
	AvailableBuild string `json:"available_build,omitempty"`
	Consoles
}

// Where an instance is defined (InstanceReport.Source).
const (
	SourceHost  = "host"  // [[instance]] of agent.toml
	SourcePanel = "panel" // created through instance_create
)

// Consoles says which consoles an instance offers, in the heartbeat's
// instance entries and the status reply, so that a panel can say up front
// what an instance lacks instead of failing after a command. Both fields
// are left out by agents older than them: absent means unknown.
type Consoles struct {
	// RCON is the kind of the instance's [instance.rcon] ("source",
	// "webrcon"), "none" without one.
	RCON string `json:"rcon,omitempty"`
	// ConsoleInput is whether the agent can write the process's stdin
	// (send): a managed instance (with an exec); an unmanaged one has none.
	ConsoleInput *bool `json:"console_input,omitempty"`
}

// RCONNone is Consoles.RCON of an instance without RCON.
const RCONNone = "none"

// ProbeReport is the result of probes: the agent's outbound TCP probes to
// its configured targets (no direction), or the panel's inbound probe of an
// instance's declared ports (Direction "inbound", docs/probe.md).
type ProbeReport struct {
	Timestamp time.Time     `json:"timestamp"`
	Direction string        `json:"direction,omitempty"`
	Results   []ProbeResult `json:"results"`
}

// DirectionInbound is ProbeReport.Direction of the panel's probe from
// outside to a host's public address.
const DirectionInbound = "inbound"

// ProbeResult is one probe target. The agent's outbound probe fills the
// first six fields; the inbound probe adds the rest.
type ProbeResult struct {
	Name      string   `json:"name"`
	Host      string   `json:"host"`
	Port      int      `json:"port"`
	OK        bool     `json:"ok"`
	LatencyMS *float64 `json:"latency_ms,omitempty"`
	Error     string   `json:"error,omitempty"`
	// Protocol is the port's transport, "tcp" or "udp".
	Protocol string `json:"protocol,omitempty"`
	// Check is what was tried: "tcp_connect", "a2s_info" (Valve's Source
	// query over UDP), or "none" (a UDP port without a query protocol: not
	// verifiable from outside, never reported ok; a refused address).
	Check string `json:"check,omitempty"`
	// Server, Players and MaxPlayers are what an A2S_INFO reply said.
	Server     string `json:"server,omitempty"`
	Players    *int   `json:"players,omitempty"`
	MaxPlayers *int   `json:"max_players,omitempty"`
}

// StatusEvent is published on {instance}.status on every state change.
type StatusEvent struct {
	Timestamp  time.Time  `json:"timestamp"`
	InstanceID string     `json:"instance_id"`
	Event      StateEvent `json:"event"`
}

// StateEvent is the "event" object of a StatusEvent.
type StateEvent struct {
	State      State  `json:"state"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	PID        int    `json:"pid,omitempty"`
	CrashCount int    `json:"crash_count,omitempty"`
	Message    string `json:"message,omitempty"`
	// Task is set on the event that ends a provisioning task
	// (install, update_check, steam_update, oxide_install).
	Task *TaskResult `json:"task,omitempty"`
}

// ConsoleMessage is published on {instance}.console.
type ConsoleMessage struct {
	Timestamp  time.Time     `json:"timestamp"`
	InstanceID string        `json:"instance_id"`
	Lines      []ConsoleLine `json:"lines"`
}

// ConsoleLine is one line of output.
type ConsoleLine struct {
	Stream string `json:"stream"`
	Text   string `json:"text"`
}

// Reply statuses.
const (
	StatusSuccess = "success"
	StatusError   = "error"
)

// ErrorReply is every error reply. Code is a stable machine-readable token
// (see the Code* constants); Message is for people.
type ErrorReply struct {
	Status  string `json:"status"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	// Field names the request field a refusal is about (a variable's
	// key, "id", "template"…), for a form to put the error beside it.
	Field string `json:"field,omitempty"`
}

// Stable error codes (docs/agent.md lists when each is sent).
const (
	CodeMalformed        = "malformed"
	CodeMissingFunc      = "missing_func"
	CodeUnknownFunc      = "unknown_func"
	CodeBadArgs          = "bad_args"
	CodeBusy             = "busy"
	CodeNotManaged       = "not_managed"
	CodeAlreadyRunning   = "already_running"
	CodeNotRunning       = "not_running"
	CodeTimeout          = "timeout"           // a wait ran out; the reply carries the current status
	CodeStdinFull        = "stdin_full"        // the game is not reading its input
	CodeStdinUnavailable = "stdin_unavailable" // the process has no stdin the agent can write
	CodeStartFailed      = "start_failed"      // the process could not be spawned
	CodeDependencyFailed = "dependency_failed" // a depends_on instance did not come up
	CodeShuttingDown     = "shutting_down"     // the agent is stopping
	CodeUnknownInstance  = "unknown_instance"  // no agent of the license runs this instance id
	CodeInternal         = "internal"
	// CodeProvisioningDisabled: a provisioning func (templates, …) on a
	// host whose [agent] provisioning is off.
	CodeProvisioningDisabled = "provisioning_disabled"
	CodeReplyTooLarge        = "reply_too_large" // the reply would not fit in one NATS message
)

// Error is the error a handler returns to produce an ErrorReply with a code.
// Payload, when set, must marshal to a JSON object; its fields are added to
// the reply (a wait that timed out carries the current status this way).
type Error struct {
	Code    string
	Msg     string
	Field   string // ErrorReply.Field
	Payload any
	// Err is the cause, when there is one (a file system error), for
	// errors.Is/As on this side; it never reaches the reply.
	Err error
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds a coded error.
func Errorf(code, format string, a ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, a...)}
}

// UnknownFunc is the error for a func not in supported.
func UnknownFunc(fn string, supported []string) *Error {
	return Errorf(CodeUnknownFunc, "unknown func %q; supported: %s", fn, strings.Join(supported, ", "))
}

// UnknownInstance is the error for a request to an instance id the agent
// does not run; the message lists the ids it does.
func UnknownInstance(id string, known []string) *Error {
	if len(known) == 0 {
		return Errorf(CodeUnknownInstance, "unknown instance %q; this agent runs no instances", id)
	}
	return Errorf(CodeUnknownInstance, "unknown instance %q; this agent runs: %s", id, strings.Join(known, ", "))
}

// EncodeError renders err as an ErrorReply. A *Error keeps its code (and
// adds its payload's fields); the request decoding errors get theirs;
// anything else is "internal".
func EncodeError(err error) []byte {
	rep := ErrorReply{Status: StatusError, Message: err.Error(), Code: CodeInternal}
	var we *Error
	switch {
	case errors.As(err, &we):
		rep.Code = we.Code
		rep.Field = we.Field
	case errors.Is(err, ErrMalformed):
		rep.Code = CodeMalformed
	case errors.Is(err, ErrMissingFunc):
		rep.Code = CodeMissingFunc
	case errors.Is(err, ErrBadArgs):
		rep.Code = CodeBadArgs
	}
	b, _ := json.Marshal(rep)
	if we == nil || we.Payload == nil {
		return b
	}
	extra, perr := json.Marshal(we.Payload)
	if perr != nil || len(extra) <= 2 || extra[0] != '{' {
		return b // no fields to add
	}
	out := append(b[:len(b)-1], ',')
	return append(out, extra[1:]...)
}

// EncodeSuccess renders a success reply: the fields of payload (a struct or
// map marshalling to a JSON object, or nil) plus "status":"success".
func EncodeSuccess(payload any) ([]byte, error) {
	if payload == nil {
		return []byte(`{"status":"success"}`), nil
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("encode reply: %w", err)
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("encode reply: payload is not a JSON object")
	}
	if len(body) == 2 {
		return []byte(`{"status":"success"}`), nil
	}
	out := make([]byte, 0, len(body)+22)
	out = append(out, `{"status":"success",`...)
	return append(out, body[1:]...), nil
}

// Status is the head every reply shares, for decoding on the panel side.
type Status struct {
	Status  string `json:"status"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// Err returns the reply's error, or nil on success.
func (s Status) Err() error {
	if s.Status == StatusSuccess {
		return nil
	}
	return &Error{Code: s.Code, Msg: s.Message}
}
