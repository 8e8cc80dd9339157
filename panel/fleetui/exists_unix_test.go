//go:build unix

package fleetui_test

import "syscall"

// exists reports whether a process with this pid exists.
func exists(pid int) bool { return syscall.Kill(pid, 0) == nil }
