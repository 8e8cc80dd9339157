package supervise

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Not run-tested here: compile-checked (GOOS=windows go vet) on the Linux
// development machines; the names and decisions it uses are tested in
// winproc_test.go. docs/windows.md lists what is verified and what is not.
//
// Every game process is put in a NAMED job object of its own
// (gameJobNames: the name derives from its PID and creation time), without
// kill-on-close, so the job, and with it the whole process tree, can be
// ended with one TerminateJobObject by this agent or a restarted one. A
// named object's name is removed when its last handle closes, even while
// the processes in it keep the job alive; so the agent puts a duplicate of
// the job handle into the game process itself, and the name lives exactly
// as long as the game.

// Job object access rights (winnt.h).
const (
	jobObjectAssignProcess = 0x0001
	jobObjectQuery         = 0x0004
	jobObjectTerminate     = 0x0008
)

var (
	kernel32           = windows.NewLazySystemDLL("kernel32.dll")
	procOpenJobObject  = kernel32.NewProc("OpenJobObjectW")
	procIsProcessInJob = kernel32.NewProc("IsProcessInJob")
)

// openJobObject opens an existing job object by name.
func openJobObject(access uint32, name string) (windows.Handle, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return 0, err
	}
	r, _, e := procOpenJobObject.Call(uintptr(access), 0, uintptr(unsafe.Pointer(p)))
	if r == 0 {
		return 0, e
	}
	return windows.Handle(r), nil
}

// ownJob is what the agent found out about its own job, once.
var ownJob struct {
	once sync.Once
	job  agentJob // set by once
}

// currentJob reports whether the agent runs in a job and that job's
// limits (QueryInformationJobObject with a nil handle asks about the
// calling process's job).
func currentJob() agentJob {
	ownJob.once.Do(func() {
		var in int32
		r, _, _ := procIsProcessInJob.Call(uintptr(windows.CurrentProcess()), 0, uintptr(unsafe.Pointer(&in)))
		if r == 0 || in == 0 {
			return
		}
		ownJob.job.In = true
		var info windows.JOBOBJECT_BASIC_LIMIT_INFORMATION
		if err := windows.QueryInformationJobObject(0, windows.JobObjectBasicLimitInformation,
			uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err == nil {
			ownJob.job.Limits = info.LimitFlags
		}
	})
	return ownJob.job
}

// enterGameJob creates the named job of the game process id, puts the
// process in it and hands the game a handle to it (so the name outlives
// this agent). Go cannot create a process suspended, so a process the game
// starts in its first instants, before this runs, is outside the job; the
// taskkill fallback of killTree still reaches it.
func enterGameJob(id ident) error {
	ph, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_DUP_HANDLE,
		false, uint32(id.PID))
	if err != nil {
		return fmt.Errorf("open the game process: %w", err)
	}
	defer windows.CloseHandle(ph)
	var errs []error
	for _, name := range gameJobNames(id) {
		job, err := createJob(name)
		if err != nil {
			errs = append(errs, err)
			continue // no privilege for Global\: try the session's namespace
		}
		err = joinJob(job, name, ph)
		_ = windows.CloseHandle(job)
		return err
	}
	return errors.Join(errs...)
}

func createJob(name string) (windows.Handle, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return 0, err
	}
	job, err := windows.CreateJobObject(nil, p)
	if err != nil {
		return 0, fmt.Errorf("create job %s: %w", name, err)
	}
	return job, nil
}

// joinJob puts the process ph in job and duplicates a handle to the job
// into it, which the game holds (unknowingly) until it exits.
func joinJob(job windows.Handle, name string, ph windows.Handle) error {
	if err := windows.AssignProcessToJobObject(job, ph); err != nil {
		return fmt.Errorf("put the game in job %s: %w", name, err)
	}
	var inGame windows.Handle // lives in the game process; never closed by us
	if err := windows.DuplicateHandle(windows.CurrentProcess(), job, ph, &inGame,
		jobObjectQuery, false, 0); err != nil {
		return fmt.Errorf("give the game a handle to job %s: %w", name, err)
	}
	return nil
}

// terminateGameJob ends every process in the job of the game process id.
// It reports false when there is no such job (a process started by an
// older agent, or one whose job could not be created).
func terminateGameJob(id ident) (bool, error) {
	for _, name := range gameJobNames(id) {
		job, err := openJobObject(jobObjectTerminate, name)
		if err != nil {
			continue
		}
		err = windows.TerminateJobObject(job, 1)
		_ = windows.CloseHandle(job)
		if err != nil {
			return true, fmt.Errorf("terminate job %s: %w", name, err)
		}
		return true, nil
	}
	return false, nil
}
