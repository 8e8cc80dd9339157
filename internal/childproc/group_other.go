//go:build !unix && !windows

package childproc

import "os/exec"

// groupSys: no process groups here; the group is the child alone.
type groupSys struct{}

// StartGroup starts cmd; Kill kills the child only.
func StartGroup(cmd *exec.Cmd) (*Group, error) {
	if err := StartBound(cmd); err != nil {
		return nil, err
	}
	return &Group{cmd: cmd}, nil
}

func (groupSys) kill(cmd *exec.Cmd) error { return cmd.Process.Kill() }

func (groupSys) close() error { return nil }
