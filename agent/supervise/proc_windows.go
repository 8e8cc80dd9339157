package supervise

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"
)

// setProcAttrs gives the child its own process group so CTRL_BREAK reaches
// it and not the agent.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// signalStop sends CTRL_BREAK to the child's process group.
func signalStop(pid int) error {
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid)); err != nil {
		return fmt.Errorf("ctrl-break: %w", err)
	}
	return nil
}

// killTree terminates the process and all its descendants.
func killTree(pid int) error {
	kids := descendants(pid)
	err := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run()
	for _, k := range kids {
		if p, perr := os.FindProcess(k); perr == nil {
			_ = p.Kill()
		}
	}
	return err
}

// stdinPipe on Windows is an anonymous pipe: `send` works while this agent
// is the child's parent, not after adoption (Windows has no FIFO that
// outlives the agent in the same way).
type stdinPipe struct {
	w *os.File
}

func newStdinPipe(string) (*stdinPipe, error) { return &stdinPipe{}, nil }

func (s *stdinPipe) childEnd() (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.w = w
	return r, nil
}

func (s *stdinPipe) writer() (*os.File, error) {
	if s.w == nil {
		return nil, fmt.Errorf("stdin is not available for an adopted process on windows")
	}
	return s.w, nil
}

func exitStatus(ps *os.ProcessState) int { return ps.ExitCode() }
