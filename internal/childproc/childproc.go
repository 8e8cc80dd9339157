// Package childproc is how a Corrosion program finds and starts the
// programs it runs as its children: FindBinary looks a sibling program up,
// StartBound ties a child's lifetime to this process's, StartGroup does
// too and lets the child be killed together with every process it started
// (Group.Kill).
//
// A bound child is killed when this process ends in any way:
//
//   - Linux: the kernel's parent-death signal (SIGKILL), even on a kill -9
//     of this process. It is sent when the *thread* that forked the child
//     exits (golang/go#27505), so every bound child is forked from one
//     goroutine locked to its thread for the life of the process.
//   - Windows: the child is put in a job object with kill-on-close whose
//     handle this process never closes; the kernel closes it, and kills
//     the job, when this process ends.
//   - Elsewhere (BoundOnKill false): nothing; the owner stops its children
//     on an orderly exit only.
//
// The parent-death signal reaches the child alone, not its descendants: a
// chain of programs is bound end to end only when each link starts the
// next with StartBound (corrosion-panel dev → its agent → the demo games).
package childproc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// ExeName is the file name of program name on this platform: name, with
// ".exe" on Windows.
func ExeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// FindBinary returns the program name (".exe" added on Windows) from the
// directory of the running executable, else from PATH: `make build` puts
// every Corrosion binary in bin/, side by side. The error names both
// places and the fix.
func FindBinary(name string) (string, error) {
	name = ExeName(name)
	var beside string
	if exe, err := os.Executable(); err == nil {
		beside = filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(beside); err == nil && !fi.IsDir() {
			return beside, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("no %s binary next to this executable (%s) or on PATH: run `make build` (it builds every binary into bin/)", name, beside)
	}
	return p, nil
}
