package supervise

import (
	"errors"
	"fmt"
	"os"

	"github.com/corrosion/corrosion/agent/wire"
)

// maxAdoptBacklog bounds how much output written while no agent was
// watching is replayed to the console on adoption.
const maxAdoptBacklog = 256 << 10

// AdoptResult says what Adopt found.
type AdoptResult int

const (
	AdoptNone     AdoptResult = iota // nothing was running
	AdoptRunning                     // a live process was adopted
	AdoptVanished                    // a process was recorded but has exited (or its PID was reused)
)

// Adopt picks up the process a previous agent left running, using
// state.json: the PID must still exist with the same start time (a reused
// PID belongs to another process and is not adopted). A process that
// vanished while no agent watched is reported as a crash and the restart
// policy applies. Adopt also restores the manual-stop flag and crash
// count. Call it once, before Start.
func (s *Supervisor) Adopt() (AdoptResult, error) {
	p, err := loadState(s.dir)
	if errors.Is(err, os.ErrNotExist) {
		return AdoptNone, nil
	}
	if err != nil {
		return AdoptNone, fmt.Errorf("adopt %s: %w", s.conf().ID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.manualStop = p.ManualStop
	s.crashes.total = p.CrashCount
	s.lastExit = p.LastExit
	if p.Process == nil {
		return AdoptNone, nil
	}
	if p.Exec != s.conf().Exec || !p.Process.alive() {
		s.log.Info("recorded process is gone", "pid", p.Process.PID)
		s.crashedLocked(wire.StateEvent{Message: "exited while no agent was watching; exit code unknown"},
			s.clock.Now().Sub(p.StartedAt), -1)
		return AdoptVanished, nil
	}
	r := &run{id: *p.Process, started: p.StartedAt, stopped: make(chan struct{})}
	if w, err := s.stdin.writer(); err == nil {
		r.stdinW = w
	}
	s.startFollowing(r, s.adoptOffsets(p.Offsets))
	s.run = r
	go s.waitExit(r)
	s.con.notice("adopted running process (pid %d) from a previous agent", r.id.PID)
	s.setStateLocked(wire.StateRunning, wire.StateEvent{Message: "adopted"})
	s.saveLocked()
	return AdoptRunning, nil
}

// adoptOffsets resumes each log where the last agent stopped reading, but
// replays at most maxAdoptBacklog bytes.
func (s *Supervisor) adoptOffsets(saved map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for _, stream := range []string{wire.StreamStdout, wire.StreamStderr} {
		fi, err := os.Stat(s.logPath(stream))
		if err != nil {
			continue
		}
		off := saved[stream]
		if off > fi.Size() {
			off = 0 // truncated since
		}
		if fi.Size()-off > maxAdoptBacklog {
			off = fi.Size() - maxAdoptBacklog
		}
		out[stream] = off
	}
	return out
}
