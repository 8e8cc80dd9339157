package supervise

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"unsafe"
)

// Not run-tested here: compile-checked (GOOS=windows go vet) on the Linux
// development machines; the decisions it uses are tested in
// winproc_test.go. docs/windows.md lists what is verified and what is not.

var procGetConsoleProcessList = kernel32.NewProc("GetConsoleProcessList")

// ownConsole reports whether the agent has a console (GetConsoleProcessList
// fails without one: a service, or a detached process). It is decided
// once, before signalStop first attaches to a game's console (it calls
// ownConsole first), so a game started while the agent is attached to
// another game's console is still created as one of a console-less agent.
var ownConsole = sync.OnceValue(func() agentConsole {
	var pids [1]uint32
	if r, _, _ := procGetConsoleProcessList.Call(uintptr(unsafe.Pointer(&pids[0])), 1); r == 0 {
		return agentWithoutConsole
	}
	return agentWithConsole
})

// setProcAttrs sets how the game is created (childCreationFlags: its own
// process group, out of the agent's job, its own windowless console under
// a service) and, when cmd's stdin is a console input pipe being prepared
// (stdin_windows.go), tells that pipe which command is about to start.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: childCreationFlags(ownConsole(), currentJob())}
	if f, ok := cmd.Stdin.(*os.File); ok {
		if v, ok := spawning.LoadAndDelete(f); ok {
			v.(*stdinPipe).starting(cmd)
		}
	}
}

// killTree ends the game's job object (every process in it) or, for a
// process without one (started by an older agent, or the job could not be
// created), runs taskkill /T /F on its tree; then it kills every
// descendant found beforehand, which reaches one the game started before
// it was put in its job.
func killTree(pid int) error {
	kids := descendants(pid)
	var err error
	found := false
	if id, ierr := identify(pid); ierr == nil {
		found, err = terminateGameJob(id)
	}
	if !found || err != nil {
		err = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run()
	}
	for _, k := range kids {
		if p, perr := os.FindProcess(k); perr == nil {
			_ = p.Kill()
		}
	}
	return err
}

func exitStatus(ps *os.ProcessState) int { return ps.ExitCode() }
