//go:build !linux && !windows

package supervise

import "os/exec"

// boundOnKill: this platform has no parent-death signal; the child is
// stopped on every orderly exit of the supervisor's owner, not on a kill.
const boundOnKill = false

func startBound(cmd *exec.Cmd) error { return cmd.Start() }
