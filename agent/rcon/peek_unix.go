//go:build unix

package rcon

import (
	"errors"
	"net"
	"syscall"
)

// canPeek: peekConn can see a connection the server has closed.
const canPeek = true

// peekConn looks at an idle connection's socket without blocking and
// without taking the read lock (RawConn.Control, not Read), so it is safe
// while another goroutine is blocked reading.
func peekConn(nc net.Conn) peekState {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return peekOpen
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return peekClosed
	}
	st := peekOpen
	cerr := raw.Control(func(fd uintptr) {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == nil && n > 0:
			st = peekData
		case err == nil:
			st = peekClosed // orderly shutdown: EOF pending
		case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EINTR):
		default:
			st = peekClosed // reset or otherwise broken
		}
	})
	if cerr != nil {
		return peekClosed
	}
	return st
}
