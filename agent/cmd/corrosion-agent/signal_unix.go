//go:build !windows

package main

import (
	"os"
	"syscall"
)

// hostShutdownSignal asks the agent to stop every game gracefully, then
// exit: the host is going down (sent by shutdown-hook, the systemd unit's
// ExecStop). Nothing else in the agent uses SIGUSR2.
const hostShutdownSignal = syscall.SIGUSR2

// hostShutdownSignals are the signals that mean a host shutdown.
var hostShutdownSignals = []os.Signal{hostShutdownSignal}
