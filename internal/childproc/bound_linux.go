package childproc

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// BoundOnKill: Linux's parent-death signal reaches the child even when
// this process is killed with SIGKILL.
const BoundOnKill = true

// forker is the goroutine that starts every die-with-parent child. The
// kernel sends the parent-death signal when the *thread* that forked the
// child exits, not the process (golang/go#27505): a child forked from an
// ordinary goroutine would be killed whenever the Go runtime retires that
// thread (which it does when a goroutine locked to it exits). The forker
// locks itself to its thread and never returns, so its thread, the
// children's parent in the kernel's eyes, lives exactly as long as this
// process.
var forker struct {
	once sync.Once
	reqs chan func() // each request runs on the forker's thread
}

// StartBound starts cmd with SIGKILL as its parent-death signal, from the
// forker's thread.
func StartBound(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	forker.once.Do(func() {
		forker.reqs = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must not be retired
			for f := range forker.reqs {
				f()
			}
		}()
	})
	done := make(chan error, 1)
	forker.reqs <- func() { done <- cmd.Start() }
	return <-done
}
