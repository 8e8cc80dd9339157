//go:build !windows

package paneltest

import "syscall"

// killTree kills a game process the agent left behind, and its process
// group (the agent starts each game in its own session).
func killTree(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
