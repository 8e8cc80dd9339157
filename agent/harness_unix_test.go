//go:build unix

package agent_test

import "syscall"

// killLeftover kills a game process the test left running, and its group.
func killLeftover(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
