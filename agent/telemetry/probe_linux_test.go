package telemetry

import (
	"context"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
)

// fullBacklogPort is a loopback listener with a backlog of zero that never
// accepts. Once its accept queue holds a connection, Linux drops further
// SYNs, so a connect hangs until its timeout: a timeout test that never
// leaves the machine.
func fullBacklogPort(t *testing.T) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	port := sa.(*syscall.SockaddrInet4).Port
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	// Fill the queue: dial until a connect times out.
	for i := 0; ; i++ {
		if i == 16 {
			t.Fatal("accept queue never filled")
		}
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			break
		}
		t.Cleanup(func() { c.Close() })
	}
	return port
}

func TestProber_TimeoutRespected(t *testing.T) {
	port := fullBacklogPort(t)
	const timeout = 250 * time.Millisecond
	targets := make([]config.Probe, 8)
	for i := range targets {
		targets[i] = config.Probe{Name: "stuck" + strconv.Itoa(i), Host: "127.0.0.1", Port: port}
	}
	p := NewProber(targets, timeout)
	start := time.Now()
	rep := p.Probe(context.Background())
	elapsed := time.Since(start)
	for _, r := range rep.Results {
		if r.OK || r.LatencyMS != nil || r.Error != "timeout after 250ms" {
			t.Errorf("result %+v, want a timeout", r)
		}
	}
	// Eight targets probed at once take about one timeout, not eight.
	if elapsed < timeout || elapsed > 6*timeout {
		t.Errorf("probe took %v with a %v timeout per target", elapsed, timeout)
	}
}
