package engine

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/corrosion/corrosion/worldsrv/etherlink"
)

// startLink runs an etherlink client to addr until the test ends.
func startLink(t *testing.T, addr string) *etherlink.Client {
	t.Helper()
	c := etherlink.New(etherlink.Config{Addr: addr, NodeID: 10, Logger: testLogger(t),
		Backoff: etherlink.Backoff{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond, Stable: time.Minute}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("etherlink Run: %v", err)
		}
	})
	return c
}

// silentPeer accepts connections and reads everything, never answering:
// a sidecar that is linked but never answers a LoginCheck.
func silentPeer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { nc.Close() })
			go func() { _, _ = io.Copy(io.Discard, nc) }()
		}
	}()
	return ln.Addr().String()
}
