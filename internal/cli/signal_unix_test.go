//go:build unix

package cli

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestSignalContext: SIGTERM and SIGINT to this process cancel the root
// context (and do not kill the process); stop releases the signals.
func TestSignalContext(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		ctx, stop := SignalContext(context.Background())
		if err := syscall.Kill(syscall.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("%v did not cancel the context", sig)
		}
		stop()
	}
}
