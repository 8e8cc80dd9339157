//go:build unix

package testbin

import (
	"errors"
	"syscall"
)

// processRunning reports whether a process with pid exists (EPERM: it
// does, as another user's).
func processRunning(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
