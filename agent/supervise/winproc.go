package supervise

// The decisions and names behind the Windows process handling
// (proc_windows.go, job_windows.go, stdin_windows.go, ctrlbreak_windows.go),
// kept free of Windows calls so their tests run on every platform.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Process creation flags (CreateProcess dwCreationFlags) and job limit
// flags, with the values Windows documents; named here so the decision in
// childCreationFlags is testable off Windows.
const (
	winCreateNewProcessGroup  uint32 = 0x00000200
	winCreateBreakawayFromJob uint32 = 0x01000000
	winCreateNoWindow         uint32 = 0x08000000

	winJobLimitBreakawayOK       uint32 = 0x00000800
	winJobLimitSilentBreakawayOK uint32 = 0x00001000
)

// agentConsole says whether the agent process has a console of its own.
type agentConsole int

const (
	// agentWithoutConsole: the agent runs as a service (or detached); its
	// children get a console each, without a window.
	agentWithoutConsole agentConsole = iota
	// agentWithConsole: the agent was started from a console; its children
	// share it, so CTRL_BREAK reaches them directly.
	agentWithConsole
)

// agentJob is what the agent knows about the job object it runs in.
type agentJob struct {
	In     bool   // the agent is in a job (the service manager's, a CI runner's…)
	Limits uint32 // that job's LimitFlags (JOBOBJECT_BASIC_LIMIT_INFORMATION)
}

// childCreationFlags is how a game process is created on Windows:
//
//   - in a process group of its own (CREATE_NEW_PROCESS_GROUP), so a
//     CTRL_BREAK sent to it reaches the game and not the agent;
//   - out of the agent's job (CREATE_BREAKAWAY_FROM_JOB) when the agent is
//     in one that allows it: a job the service manager (or a host's policy)
//     puts the agent in would otherwise end the games with the agent. A job
//     that does not allow breakaway would make CreateProcess fail with the
//     flag set, so it is left out then and the games stay in that job (a
//     limit docs/windows.md names);
//   - without a console window (CREATE_NO_WINDOW) when the agent has no
//     console: each game gets a console of its own (needed for CTRL_BREAK),
//     and none pops up.
func childCreationFlags(c agentConsole, j agentJob) uint32 {
	flags := winCreateNewProcessGroup
	if j.In && j.Limits&(winJobLimitBreakawayOK|winJobLimitSilentBreakawayOK) != 0 {
		flags |= winCreateBreakawayFromJob
	}
	if c == agentWithoutConsole {
		flags |= winCreateNoWindow
	}
	return flags
}

// gameJobNames are the names the job object of the process id is created
// or opened under, in order: the global namespace (a service has the
// privilege to create there, and every session sees it), then the
// session's (an agent run by an ordinary user in a console). The name
// derives from the process identity alone, so a kill needs nothing but the
// PID (and a reused PID names another job).
func gameJobNames(id ident) []string {
	base := fmt.Sprintf("corrosion-game-%d-%d", id.PID, id.StartTime)
	return []string{`Global\` + base, `Local\` + base}
}

// maxPipeLabel bounds the readable part of a stdin pipe's name.
const maxPipeLabel = 64

// stdinPipeName is the name of the named pipe that carries one run's
// console input: \\.\pipe\corrosion-<instance>-<dir hash>-<run>. The
// instance part is the state directory's last element reduced to
// [a-z0-9_-] (instance ids already are); the hash of the whole directory
// keeps two agents on one host apart; the run number keeps a new run clear
// of an old pipe still held open by a leftover descendant of the last run.
func stdinPipeName(dir string, run uint64) string {
	label := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '_'
	}, filepath.Base(dir))
	if len(label) > maxPipeLabel {
		label = label[:maxPipeLabel]
	}
	sum := sha256.Sum256([]byte(dir))
	return `\\.\pipe\corrosion-` + label + "-" + hex.EncodeToString(sum[:4]) + "-" + strconv.FormatUint(run, 16)
}

// stdinRecordFile, in the instance's state directory, tells a restarted
// agent where the console input of the running process is.
const stdinRecordFile = "stdin.json"

// stdinRecord says which handle value, inside the game process, is the
// writing end of its console input pipe. Windows cannot reconnect to a
// named pipe whose one instance is still connected, so the game itself
// holds that writing end (a duplicate the agent put there); a restarted
// agent duplicates it back out of the game (DuplicateHandle) after checking
// that the process is the same one (PID and creation time).
type stdinRecord struct {
	Process ident  `json:"process"`
	Handle  uint64 `json:"handle"` // the handle value in the game process
	Pipe    string `json:"pipe"`   // the pipe's name, for people reading the file
	// Why the game has no job object (a kill falls back to taskkill).
	JobError string `json:"job_error,omitempty"`
	// Why the game holds no writing end (no send after an agent restart).
	HandOverError string `json:"hand_over_error,omitempty"`
}

// errBadStdinRecord marks a stdin.json that cannot be used.
var errBadStdinRecord = errors.New("bad stdin record")

// maxHandleValue: Windows handle values are multiples of 4 below 2^24 per
// process in practice; anything past 2^32 is not one we wrote.
const maxHandleValue = 1 << 32

// parseStdinRecord decodes and checks a stdin.json.
func parseStdinRecord(b []byte) (stdinRecord, error) {
	var rec stdinRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return stdinRecord{}, fmt.Errorf("%w: %v", errBadStdinRecord, err)
	}
	switch {
	case rec.HandOverError != "":
		return stdinRecord{}, fmt.Errorf("%w: the game was not given its stdin writer: %s", errBadStdinRecord,
			rec.HandOverError)
	case rec.Process.PID <= 0:
		return stdinRecord{}, fmt.Errorf("%w: pid %d", errBadStdinRecord, rec.Process.PID)
	case rec.Handle == 0 || rec.Handle >= maxHandleValue || rec.Handle%4 != 0:
		return stdinRecord{}, fmt.Errorf("%w: handle %#x", errBadStdinRecord, rec.Handle)
	}
	return rec, nil
}
