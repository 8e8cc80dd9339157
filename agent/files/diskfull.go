//go:build !windows

package files

import (
	"errors"
	"syscall"
)

// IsDiskFull reports whether err (or its cause, through a *wire.Error of
// this package) is the file system running out of space: ENOSPC.
func IsDiskFull(err error) bool { return errors.Is(err, syscall.ENOSPC) }
