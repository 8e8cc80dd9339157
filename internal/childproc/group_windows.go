package childproc

import (
	"fmt"
	"os/exec"
	"unsafe"

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
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return nil, fmt.Errorf("set kill-on-close on the job object: %w", err)
	}
	if err := cmd.Start(); err != nil {
		_ = windows.CloseHandle(job)
		return nil, err
	}
	ph, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(job, ph)
		_ = windows.CloseHandle(ph)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = windows.CloseHandle(job)
		return nil, fmt.Errorf("put the child in its job object: %w", err)
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
