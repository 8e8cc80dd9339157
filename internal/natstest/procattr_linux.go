package natstest

import "syscall"

// dieWithTest makes the server process die with the test binary, so a
// crashed test run never leaves a nats-server behind.
func dieWithTest() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
