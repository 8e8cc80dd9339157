//go:build !linux

package natstest

import "syscall"

// dieWithTest: only Linux has a parent-death signal; elsewhere the test's
// cleanup stops the server.
func dieWithTest() *syscall.SysProcAttr { return nil }
