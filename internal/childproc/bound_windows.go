package childproc

import (
	"fmt"
	"os/exec"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Not run-tested here: this file is compile-checked (GOOS=windows go vet)
// on the Linux development machines; the behaviour is Windows' documented
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE.

// BoundOnKill: the job object is closed by the kernel when this process
// ends in any way, which kills every process in it.
const BoundOnKill = true

// killJob is one job object for all die-with-parent children of this
// process, created on first use. Its handle is never closed (nor
// inherited): the kernel closes it when this process ends, and with
// KILL_ON_JOB_CLOSE that terminates every process in the job.
var killJob struct {
	once sync.Once
	h    windows.Handle // set by once
	err  error          // set by once
}

func jobHandle() (windows.Handle, error) {
	killJob.once.Do(func() { killJob.h, killJob.err = newKillOnCloseJob() })
	return killJob.h, killJob.err
}

// newKillOnCloseJob creates a job object with kill-on-close: when its last
// handle closes (at the latest when this process ends), every process in
// it is terminated.
func newKillOnCloseJob() (windows.Handle, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(h)
		return 0, fmt.Errorf("set kill-on-close on the job object: %w", err)
	}
	return h, nil
}

// startInJob starts cmd and assigns it to job; a child that cannot be
// assigned is killed.
func startInJob(cmd *exec.Cmd, job windows.Handle) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	ph, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(job, ph)
		_ = windows.CloseHandle(ph)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("put the child in its job object: %w", err)
	}
	return nil
}

// StartBound starts cmd and puts it in the kill-on-close job. Go cannot
// start a process suspended, so a process the child creates in its first
// instants, before it is assigned, is outside the job.
func StartBound(cmd *exec.Cmd) error {
	job, err := jobHandle()
	if err != nil {
		return err
	}
	return startInJob(cmd, job)
}
