// Package portholder finds the process that listens on a local TCP port,
// to name it when a port is taken ("held by pid 4242 (ether run)"). It
// reads /proc on Linux; elsewhere Find reports ErrUnsupported.
package portholder

import (
	"errors"
	"fmt"
)

// ErrUnsupported: the system offers no way to find a port's holder here.
var ErrUnsupported = errors.New("portholder: not supported on this system")

// ErrNotFound: no listening socket on the port, or its process could not
// be seen (another user's process, without the privilege to look).
var ErrNotFound = errors.New("portholder: no process found")

// Holder is a process listening on a port.
type Holder struct {
	PID     int
	Command string // its command line, arguments joined by spaces (may be empty)
}

// String is "pid 4242 (ether run)".
func (h Holder) String() string {
	if h.Command == "" {
		return fmt.Sprintf("pid %d", h.PID)
	}
	return fmt.Sprintf("pid %d (%s)", h.PID, h.Command)
}

// Find returns the process listening on TCP port (IPv4 or IPv6, any
// address). Errors wrap ErrUnsupported or ErrNotFound.
func Find(port int) (Holder, error) { return find(port) }
