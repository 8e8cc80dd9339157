package supervise

import (
	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
)

// The supervisor's API is written in types of agent/config (the instance
// to run) and agent/wire (states and console lines). They are re-exported
// here, as aliases, so a program other than the agent that supervises a
// process with this package — worldsrv and its ether sidecar — depends on
// the supervisor alone: docs/development.md lets worldsrv import
// agent/supervise and no other agent package.
type (
	Instance    = config.Instance
	State       = wire.State
	StateEvent  = wire.StateEvent
	ConsoleLine = wire.ConsoleLine
)

// States of a supervised process (see the package doc's diagram).
const (
	StateStopped  = wire.StateStopped
	StateStarting = wire.StateStarting
	StateRunning  = wire.StateRunning
	StateStopping = wire.StateStopping
	StateCrashed  = wire.StateCrashed
)

// Console streams: the child's stdout and stderr, and the supervisor's own
// notices.
const (
	StreamStdout = wire.StreamStdout
	StreamStderr = wire.StreamStderr
	StreamNotice = wire.StreamAgent
)

// Restart policies (Policy.Restart).
const (
	RestartNever   = config.RestartNever
	RestartOnCrash = config.RestartOnCrash
	RestartAlways  = config.RestartAlways
)

// Environ is the environment the supervisor gives inst's process: the
// small base set of this process's environment (or all of it with
// InheritEnv), then inst.Env. A program that runs a one-off command of the
// same child (worldsrv's `ether migrate`) gives it the same environment.
func Environ(inst *Instance) []string { return gameEnviron(inst, "") }
