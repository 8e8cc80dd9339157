//go:build unix

package supervise

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// setProcAttrs puts the child in a session (and process group) of its own,
// so it survives the agent and its whole tree can be signalled at once.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// stopSignals are config.StopSignals, the signals a graceful stop may
// send, by name (a test keeps the two equal).
var stopSignals = map[string]syscall.Signal{
	"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT, "SIGQUIT": syscall.SIGQUIT,
	"SIGHUP": syscall.SIGHUP, "SIGUSR1": syscall.SIGUSR1, "SIGUSR2": syscall.SIGUSR2,
}

// signalStop sends the graceful stop signal named name (SIGTERM when it
// names none) to the process group.
func signalStop(pid int, name string) error {
	sig, ok := stopSignals[name]
	if !ok {
		sig = syscall.SIGTERM
	}
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return syscall.Kill(pid, sig)
	}
	return nil
}

// killTree sends SIGKILL to the process group and to every descendant
// found, including ones that moved to another group.
func killTree(pid int) error {
	kids := descendants(pid)
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) || errors.Is(err, syscall.EPERM) {
		err = syscall.Kill(pid, syscall.SIGKILL)
	}
	for _, k := range kids {
		_ = syscall.Kill(k, syscall.SIGKILL)
	}
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// stdinPipe is the instance's stdin: a named pipe (FIFO) in the state
// directory. The child holds it open read-write, so it never sees EOF when
// the agent goes away; a restarted agent reopens it to keep `send` working
// for adopted processes.
type stdinPipe struct {
	path string
}

func newStdinPipe(dir string) (*stdinPipe, error) {
	p := filepath.Join(dir, "stdin.fifo")
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeNamedPipe == 0 {
		if err := os.Remove(p); err != nil {
			return nil, fmt.Errorf("replace stdin fifo: %w", err)
		}
	}
	if err := unix.Mkfifo(p, 0o600); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("create stdin fifo: %w", err)
	}
	return &stdinPipe{path: p}, nil
}

// childEnd opens the end handed to the child.
func (s *stdinPipe) childEnd() (*os.File, error) {
	return os.OpenFile(s.path, os.O_RDWR, 0)
}

// writer opens the agent's end; it never blocks because the child (or this
// open itself) holds a reader.
func (s *stdinPipe) writer() (*os.File, error) {
	return os.OpenFile(s.path, os.O_RDWR|unix.O_NONBLOCK, 0)
}

// exitStatus converts a wait status to the exit code we report: the code,
// or 128+signal for a signalled process (as shells do).
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
