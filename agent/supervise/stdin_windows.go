package supervise

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"golang.org/x/sys/windows"
)

// Not run-tested here (see job_windows.go).
//
// The game's stdin is the server (reading) end of a named pipe
// (stdinPipeName), created by the agent and inherited by the game as its
// standard input. The agent opens the client (writing) end, overlapped so
// a write to a game that does not read its input honours the write
// deadline.
//
// Who holds which end, and what survives an agent restart:
//
//   - If only the agent held the client end, the game would read EOF
//     (ERROR_BROKEN_PIPE) the moment the agent exits: a named pipe
//     instance breaks when its client closes, and a new client can only
//     connect after the server side calls DisconnectNamedPipe and
//     ConnectNamedPipe, which a game never does. Re-opening the pipe by
//     name is therefore impossible: the one instance is either still
//     connected (busy) or broken for good.
//   - So once the game runs the agent duplicates its client handle INTO
//     the game process (DuplicateHandle). The game holds both ends, as on
//     Linux it holds its FIFO read-write: it never sees EOF, whatever the
//     agent does. The handle's value inside the game goes to stdin.json;
//     a restarted agent checks that the recorded process is the adopted
//     one (PID and creation time) and duplicates that handle back out of
//     the game (PROCESS_DUP_HANDLE). The copy shares the file object the
//     previous agent had bound to its I/O completion port, which died with
//     it, and a file object cannot be bound to a second port (unbinding it
//     needs FileReplaceCompletionInformation: Windows 8.1, not wine 8), so
//     this agent never hands it to Go's poller: it writes to it from a
//     relay (stdin_relay_windows.go).
//   - A game started by an older agent (an anonymous pipe, no stdin.json)
//     has no recoverable input: send answers stdin_unavailable, as before.
//
// Go has no hook between building a command and starting it, and the
// supervisor's start path knows nothing of Windows: childEnd registers the
// game's end in spawning, setProcAttrs (called on the command with that
// end as Stdin) tells the pipe which command starts, and writer, which the
// start path calls right after the start, finds the started process there
// and puts it in its job (job_windows.go) and its client handle in it.

// spawning maps the game's end of a pipe being prepared (*os.File) to its
// *stdinPipe, from childEnd to setProcAttrs.
var spawning sync.Map

// stdinPipeBuffer is the pipe's input buffer, as a Linux pipe's.
const stdinPipeBuffer = 64 << 10

// stdinPipe is one instance's console input.
type stdinPipe struct {
	dir string // immutable; the instance's state directory

	mu     sync.Mutex
	runs   uint64         // guarded by mu; pipes created, for the next name
	name   string         // guarded by mu; the pipe of the run being started
	client windows.Handle // guarded by mu; the agent's end for the run being started, 0 if none
	game   *os.File       // guarded by mu; the game's end while registered in spawning, nil if none
	cmd    *exec.Cmd      // guarded by mu; the run being started (set by setProcAttrs), nil if none
}

func newStdinPipe(dir string) (*stdinPipe, error) { return &stdinPipe{dir: dir}, nil }

// childEnd creates the pipe of a new run and returns the game's end.
func (s *stdinPipe) childEnd() (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropPendingLocked()
	s.runs++
	name := stdinPipeName(s.dir, s.runs)
	server, client, err := createStdinPipe(name)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(server), name)
	s.name, s.client, s.game = name, client, f
	spawning.Store(f, s)
	return f, nil
}

// dropPendingLocked forgets a run that never started (its other files
// could not be opened, or the start failed): its registration, its client
// end.
func (s *stdinPipe) dropPendingLocked() {
	if s.game != nil {
		spawning.Delete(s.game)
		s.game = nil
	}
	if s.client != 0 {
		_ = windows.CloseHandle(s.client)
		s.client = 0
	}
	s.cmd = nil
}

// starting records the command about to start with this pipe's game end.
func (s *stdinPipe) starting(cmd *exec.Cmd) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cmd = cmd
}

// createStdinPipe creates the pipe (one instance, local clients only, and
// failing if the name exists: nobody can slip in a pipe of their own) and
// connects the client end to it.
func createStdinPipe(name string) (server, client windows.Handle, err error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return 0, 0, err
	}
	server, err = windows.CreateNamedPipe(p, windows.PIPE_ACCESS_INBOUND|windows.FILE_FLAG_FIRST_PIPE_INSTANCE,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		1, 0, stdinPipeBuffer, 0, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("create stdin pipe: %w", err)
	}
	client, err = windows.CreateFile(p, windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_OVERLAPPED, 0)
	if err != nil {
		_ = windows.CloseHandle(server)
		return 0, 0, fmt.Errorf("connect to stdin pipe: %w", err)
	}
	return server, client, nil
}

// writer is the agent's end: right after a start, the new run's (and the
// run is put in its job and given its handles); on adoption, the one
// recorded in stdin.json, taken back out of the game.
func (s *stdinPipe) writer() (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil && s.cmd.Process != nil && s.client != 0 {
		return s.startedLocked(), nil
	}
	return s.recover()
}

// startedLocked hands the started game its job and its copy of the client
// end, records it for a later agent, and returns the agent's end. Those
// steps failing costs what they are for (a kill through the job, send
// after an agent restart), never this run's input; stdin.json says why.
func (s *stdinPipe) startedLocked() *os.File {
	cmd, client, name := s.cmd, s.client, s.name
	s.cmd, s.client, s.game = nil, 0, nil
	w := os.NewFile(uintptr(client), name)
	id, err := identify(cmd.Process.Pid)
	if err != nil {
		return w // exited already; the start path reports it
	}
	rec := stdinRecord{Process: id, Pipe: name}
	if err := enterGameJob(id); err != nil {
		rec.JobError = err.Error()
	}
	h, err := putHandle(id.PID, client)
	if err != nil {
		rec.HandOverError = err.Error()
	}
	rec.Handle = uint64(h)
	_ = writeJSONAtomic(filepath.Join(s.dir, stdinRecordFile), rec)
	return w
}

// putHandle duplicates h into the process pid and returns its value there.
func putHandle(pid int, h windows.Handle) (windows.Handle, error) {
	ph, err := windows.OpenProcess(windows.PROCESS_DUP_HANDLE, false, uint32(pid))
	if err != nil {
		return 0, fmt.Errorf("open the game process: %w", err)
	}
	defer windows.CloseHandle(ph)
	var in windows.Handle
	if err := windows.DuplicateHandle(windows.CurrentProcess(), h, ph, &in, 0, false,
		windows.DUPLICATE_SAME_ACCESS); err != nil {
		return 0, fmt.Errorf("give the game its stdin writer: %w", err)
	}
	return in, nil
}

// errNoRecord: the process was not started by an agent that records its
// stdin (or the record is of another process).
var errNoRecord = errors.New("stdin is not available for this adopted process")

// recover takes the client end recorded in stdin.json back out of the
// adopted game.
func (s *stdinPipe) recover() (*os.File, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, stdinRecordFile))
	if err != nil {
		return nil, errNoRecord
	}
	rec, err := parseStdinRecord(b)
	if err != nil {
		return nil, err
	}
	if st, err := loadState(s.dir); err != nil || st.Process == nil || *st.Process != rec.Process ||
		!rec.Process.alive() {
		return nil, errNoRecord
	}
	h, err := takeHandle(rec.Process.PID, windows.Handle(rec.Handle))
	if err != nil {
		return nil, err
	}
	w, err := newRelay(h, rec.Pipe)
	if err != nil {
		_ = windows.CloseHandle(h)
		return nil, err
	}
	return w, nil
}

// takeHandle duplicates the handle h of process pid into this process.
func takeHandle(pid int, h windows.Handle) (windows.Handle, error) {
	ph, err := windows.OpenProcess(windows.PROCESS_DUP_HANDLE, false, uint32(pid))
	if err != nil {
		return 0, fmt.Errorf("open the adopted process: %w", err)
	}
	defer windows.CloseHandle(ph)
	var local windows.Handle
	if err := windows.DuplicateHandle(ph, h, windows.CurrentProcess(), &local, 0, false,
		windows.DUPLICATE_SAME_ACCESS); err != nil {
		return 0, fmt.Errorf("take the stdin writer from the adopted process: %w", err)
	}
	if t, err := windows.GetFileType(local); err != nil || t != windows.FILE_TYPE_PIPE {
		_ = windows.CloseHandle(local)
		return 0, fmt.Errorf("the recorded stdin handle of the adopted process is not a pipe")
	}
	return local, nil
}
