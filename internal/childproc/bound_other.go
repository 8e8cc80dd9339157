//go:build !linux && !windows

package childproc

import "os/exec"

// BoundOnKill: this platform has no parent-death signal; the child is
// stopped on every orderly exit of the supervisor's owner, not on a kill.
const BoundOnKill = false

func StartBound(cmd *exec.Cmd) error { return cmd.Start() }
