//go:build unix && !linux

package pgembed

import "syscall"

func setPdeathsig(*syscall.SysProcAttr, syscall.Signal) {}
