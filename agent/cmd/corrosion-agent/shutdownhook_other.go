//go:build !linux

package main

import (
	"fmt"
	"io"
)

// shutdownHook: the hook belongs to the systemd unit, so Linux only.
func shutdownHook(stderr io.Writer) int {
	fmt.Fprintln(stderr, "corrosion-agent shutdown-hook: only used by the systemd unit on Linux")
	return 2
}
