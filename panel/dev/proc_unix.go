//go:build unix

package dev

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the agent in a process group of its own, so the
// terminal's Ctrl-C reaches only corrosion-panel dev, which then stops the
// instances through the agent before stopping it (the games die with the
// agent, but killed, without saving).
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// terminate asks a process to stop (SIGTERM).
func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }

// killTree kills a game process and its process group: the agent starts
// each game in a session of its own, so its group id is its pid.
func killTree(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// alive reports whether pid names a live process.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }
