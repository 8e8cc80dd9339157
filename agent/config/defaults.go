package config

import (
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// Defaults of the [agent] table.
const (
	DefaultNATSURL          = "nats://127.0.0.1:4222"
	DefaultHeartbeatSeconds = 60
	DefaultLogLevel         = "info"
	DefaultConsoleLineLimit = 2000
	DefaultConsoleWindow    = 100 * time.Millisecond
	DefaultConsoleRingLines = 1000
	DefaultBackoffInitial   = time.Second
	DefaultBackoffMax       = 60 * time.Second
	DefaultHealthyAfter     = 5 * time.Minute
	DefaultCrashLoopCount   = 5
	DefaultCrashLoopWindow  = 10 * time.Minute
)

// Defaults of an [[instance]].
const (
	DefaultRestart            = RestartOnCrash // managed instances only
	DefaultStopTimeoutSeconds = 30
)

// Readiness defaults of an [[instance]] with a ready_pattern.
const (
	DefaultReadyTimeoutSeconds = 300
	DefaultReadyTimeoutAction  = ReadyTimeoutRunning
)

// DefaultStateDir is /var/lib/corrosion-agent, or on Windows
// %ProgramData%\corrosion-agent (C:\ProgramData when the variable is unset).
func DefaultStateDir() string {
	if runtime.GOOS == "windows" {
		base := os.Getenv("ProgramData")
		if base == "" {
			base = `C:\ProgramData`
		}
		return filepath.Join(base, "corrosion-agent")
	}
	return "/var/lib/corrosion-agent"
}

// ApplyDefaults fills every zero-valued setting with its default, for a
// Config built in code. (Parse fills only the keys the file leaves out, so
// an explicit zero there is kept and validated.) Label defaults to the id,
// restart to on-crash for a managed instance, and an empty rcon kind to the
// game's (InferRCONKind).
func (c *Config) ApplyDefaults() { c.applyDefaults(nil) }

func (c *Config) applyDefaults(p *presence) {
	a := &c.Agent
	setDefault(&a.NATSURL, DefaultNATSURL, p.agentSet("nats_url"))
	setDefault(&a.HeartbeatSeconds, DefaultHeartbeatSeconds, p.agentSet("heartbeat_seconds"))
	setDefault(&a.StateDir, DefaultStateDir(), p.agentSet("state_dir"))
	setDefault(&a.InstancesRoot, DefaultInstancesRoot(), p.agentSet("instances_root"))
	setDefault(&a.LogLevel, DefaultLogLevel, p.agentSet("log_level"))
	setDefault(&a.ConsoleLineLimit, DefaultConsoleLineLimit, p.agentSet("console_line_limit"))
	setDefault(&a.ConsoleWindow, Duration{DefaultConsoleWindow}, p.agentSet("console_window"))
	setDefault(&a.ConsoleRingLines, DefaultConsoleRingLines, p.agentSet("console_ring_lines"))
	setDefault(&a.BackoffInitial, Duration{DefaultBackoffInitial}, p.agentSet("restart_backoff_initial"))
	setDefault(&a.BackoffMax, Duration{DefaultBackoffMax}, p.agentSet("restart_backoff_max"))
	setDefault(&a.HealthyAfter, Duration{DefaultHealthyAfter}, p.agentSet("restart_healthy_after"))
	setDefault(&a.CrashLoopCount, DefaultCrashLoopCount, p.agentSet("crash_loop_count"))
	setDefault(&a.CrashLoopWindow, Duration{DefaultCrashLoopWindow}, p.agentSet("crash_loop_window"))
	for i := range c.Instances {
		in := &c.Instances[i]
		setDefault(&in.Label, in.ID, p.instanceSet(i, "label"))
		setDefault(&in.StopTimeoutSeconds, DefaultStopTimeoutSeconds, p.instanceSet(i, "stop_timeout_seconds"))
		setDefault(&in.ReadyTimeoutSeconds, DefaultReadyTimeoutSeconds, p.instanceSet(i, "ready_timeout_seconds"))
		setDefault(&in.ReadyTimeoutAction, DefaultReadyTimeoutAction, p.instanceSet(i, "ready_timeout_action"))
		if in.Managed() {
			setDefault(&in.Restart, DefaultRestart, p.instanceSet(i, "restart"))
		}
		if in.RCON != nil && in.RCON.Kind == "" {
			in.RCON.Kind = InferRCONKind(in.Game)
		}
	}
}

// setDefault sets *v to def when the file did not set it and it is zero.
func setDefault[T comparable](v *T, def T, set bool) {
	var zero T
	if !set && *v == zero {
		*v = def
	}
}
