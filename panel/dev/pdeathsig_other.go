//go:build unix && !linux

package dev

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}
