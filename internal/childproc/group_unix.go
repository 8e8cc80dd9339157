//go:build unix

package childproc

import (
	"errors"
	"os/exec"
	"syscall"
)

// groupSys: on Unix the group is the child's process group, whose id is
// the child's pid.
type groupSys struct{}

// StartGroup starts cmd as the leader of a new process group, bound like
// StartBound.
func StartGroup(cmd *exec.Cmd) (*Group, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := StartBound(cmd); err != nil {
		return nil, err
	}
	return &Group{cmd: cmd}, nil
}

// kill sends SIGKILL to the process group (and to the leader, in case it
// left it).
func (groupSys) kill(cmd *exec.Cmd) error {
	pid := cmd.Process.Pid
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		err = nil
	}
	if lerr := syscall.Kill(pid, syscall.SIGKILL); lerr != nil && !errors.Is(lerr, syscall.ESRCH) && err == nil {
		err = lerr
	}
	return err
}

func (groupSys) close() error { return nil }
