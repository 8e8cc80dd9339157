//go:build !unix

package dev

import (
	"os"
	"os/exec"
)

func ownGroup(*exec.Cmd) {}

func terminate(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func killTree(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func alive(pid int) bool {
	_, err := os.FindProcess(pid)
	return err == nil
}
