package netprobetest

import (
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// FullBacklogPort is a loopback listener with a backlog of zero that never
// accepts. Once its accept queue holds a connection, Linux drops further
// SYNs, so a connect hangs until its timeout, as at a port a firewall
// filters: a timeout test that never leaves the machine. It is closed when
// t's test ends.
func FullBacklogPort(t testing.TB) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
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
		t.Cleanup(func() { _ = c.Close() })
	}
	return port
}
