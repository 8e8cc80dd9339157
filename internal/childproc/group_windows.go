package childproc

import (
	"fmt"
	"os/exec"

	"golang.org/x/sys/windows"
)

// Not run-tested here: compile-checked (GOOS=windows go build) on the
// Linux development machines.

// groupSys: on Windows the group is a job object of the child's own, with
// kill-on-close: TerminateJobObject ends every process in it, and the
// kernel closing the handle when this process ends does too.
type groupSys struct {
	job windows.Handle // the group's job; closed by close
}

// StartGroup starts cmd in a kill-on-close job object of its own. Go
// cannot start a process suspended, so a process the child creates in its
// first instants, before it is assigned, is outside the job.
func StartGroup(cmd *exec.Cmd) (*Group, error) {
	job, err := newKillOnCloseJob()
	if err != nil {
		return nil, err
	}
	if err := startInJob(cmd, job); err != nil {
		_ = windows.CloseHandle(job)
		return nil, err
	}
	return &Group{cmd: cmd, sys: groupSys{job: job}}, nil
}

func (s groupSys) kill(*exec.Cmd) error {
	if err := windows.TerminateJobObject(s.job, 1); err != nil {
		return fmt.Errorf("terminate the job object: %w", err)
	}
	return nil
}

func (s groupSys) close() error { return windows.CloseHandle(s.job) }
