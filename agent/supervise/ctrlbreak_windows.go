package supervise

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/windows"
)

// Not run-tested here (see job_windows.go).
//
// CTRL_BREAK reaches only processes attached to the console it is
// generated on. A game started by an agent with a console shares that
// console; a game started by the service (which has none) has a console of
// its own, without a window (childCreationFlags). To signal such a game
// the agent attaches to the game's console for the moment of the signal:
//
//	AttachConsole(game) → SetConsoleCtrlHandler(swallow, add) →
//	GenerateConsoleCtrlEvent(CTRL_BREAK, game's process group) →
//	FreeConsole → SetConsoleCtrlHandler(swallow, remove)
//
// serialized by ctrlMu (a process has one console at a time). The event
// goes to the game's process group, not to group 0 (everything on the
// console), so the agent is not among its receivers; the swallow handler
// is the belt to those braces (SetConsoleCtrlHandler(nil, true) would
// ignore CTRL_C only, not CTRL_BREAK, and the default handler ends the
// process). The agent never calls FreeConsole first: an agent that has a
// console of its own keeps it (AttachConsole then fails with
// ERROR_ACCESS_DENIED and the event is generated on the agent's console,
// where its games are). A game adopted by an agent with a console, started
// on another console, is not reached: stop_command, and the job kill after
// stop_timeout_seconds, remain.

var (
	procAttachConsole         = kernel32.NewProc("AttachConsole")
	procFreeConsole           = kernel32.NewProc("FreeConsole")
	procSetConsoleCtrlHandler = kernel32.NewProc("SetConsoleCtrlHandler")
)

// ctrlMu serializes console attachment.
var ctrlMu sync.Mutex

// swallow is the console control handler installed while the agent is
// attached to a game's console: it handles (ignores) every event.
var swallow = sync.OnceValue(func() uintptr {
	return windows.NewCallback(func(ctrlType uint32) uintptr { return 1 })
})

// signalStop sends CTRL_BREAK to the game's process group, whatever
// signal the config names (Windows has no other).
func signalStop(pid int, _ string) error {
	ctrlMu.Lock()
	defer ctrlMu.Unlock()
	ownConsole() // decided before the agent is ever attached to a game's console
	if r, _, err := procAttachConsole.Call(uintptr(pid)); r == 0 {
		if errors.Is(err, windows.ERROR_ACCESS_DENIED) { // the agent has a console: the game shares it
			if err := ctrlBreak(pid); err != nil {
				return fmt.Errorf("%w (on the agent's console)", err)
			}
			return nil
		}
		return fmt.Errorf("ctrl-break: attach to the console of pid %d: %w", pid, err)
	}
	h := swallow()
	_, _, _ = procSetConsoleCtrlHandler.Call(h, 1)
	err := ctrlBreak(pid)
	_, _, _ = procFreeConsole.Call()
	_, _, _ = procSetConsoleCtrlHandler.Call(h, 0)
	if err != nil {
		return fmt.Errorf("%w (attached to the game's console)", err)
	}
	return nil
}

func ctrlBreak(pid int) error {
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid)); err != nil {
		return fmt.Errorf("ctrl-break: %w", err)
	}
	return nil
}
