// Package portowner names the process that listens on a local TCP port, so
// a program that cannot bind a port can say who holds it ("127.0.0.1:8080
// is held by pid 4242 (/usr/bin/worldsrv)") instead of only "address
// already in use".
//
// On Linux it reads the kernel's socket tables (/proc/net/tcp and tcp6:
// the listening sockets' inodes) and finds the process with that socket
// among its open files (/proc/<pid>/fd). A process of another user is found
// only when this one may read its /proc entries (root may). Elsewhere, and
// whenever the holder cannot be seen, Lookup returns ErrUnknown and
// Describe says "another program".
package portowner

import (
	"errors"
	"fmt"
)

// ErrUnknown: no process could be named for the port (no listener found,
// the holder's /proc entries are not readable, or the platform has no
// lookup).
var ErrUnknown = errors.New("the process holding the port is unknown")

// Owner is a process listening on a port.
type Owner struct {
	PID int
	// Program is the executable as the process was started (its argv[0]).
	// The rest of the command line is left out: it may hold secrets
	// (passwords given as flags).
	Program string
}

// String is "pid 4242 (/usr/bin/worldsrv)".
func (o Owner) String() string {
	if o.Program == "" {
		return fmt.Sprintf("pid %d", o.PID)
	}
	return fmt.Sprintf("pid %d (%s)", o.PID, o.Program)
}

// Lookup returns the process listening on TCP port on any local address,
// IPv4 or IPv6; ErrUnknown when none can be named.
func Lookup(port int) (Owner, error) {
	if port < 1 || port > 65535 {
		return Owner{}, fmt.Errorf("port %d is not 1-65535", port)
	}
	return lookup(port)
}

// Describe names the holder of port for a message: "pid 4242
// (/usr/bin/worldsrv)", or "another program" when it cannot be named.
func Describe(port int) string {
	o, err := Lookup(port)
	if err != nil {
		return "another program"
	}
	return o.String()
}
