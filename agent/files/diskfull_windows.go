package files

import (
	"errors"

	"golang.org/x/sys/windows"
)

// IsDiskFull reports whether err (or its cause, through a *wire.Error of
// this package) is the file system running out of space:
// ERROR_DISK_FULL, or ERROR_HANDLE_DISK_FULL.
func IsDiskFull(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL)
}
