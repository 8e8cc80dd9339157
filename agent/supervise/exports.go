package supervise

import "github.com/corrosion/corrosion/agent/config"

// Environ is the environment the supervisor gives inst's process: the
// small base set of this process's environment (or all of it with
// InheritEnv), then inst.Env. A program that runs a one-off command of the
// same child (worldsrv's `ether migrate`) gives it the same environment.
func Environ(inst *config.Instance) []string { return gameEnviron(inst, "") }
