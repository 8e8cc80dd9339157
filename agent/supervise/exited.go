package supervise

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// adoptedPoll is how often an adopted process (not our child, so no wait
// status) is checked for liveness.
const adoptedPoll = 250 * time.Millisecond

// waitExit waits for r to exit and handles it. For our own child the exit
// code is known; for an adopted process it is not.
func (s *Supervisor) waitExit(r *run) {
	code := -1
	known := false
	if r.cmd != nil {
		_ = r.cmd.Wait()
		code, known = exitStatus(r.cmd.ProcessState), true
	} else {
		for r.id.alive() {
			select {
			case <-r.stopped:
				return // the supervisor was closed
			case <-time.After(adoptedPoll):
			}
		}
	}
	r.stopFollowing() // drain the last output before reporting the exit
	s.exited(r, code, known)
}

// exited moves the supervisor on after r ended: to stopped when the agent
// asked for it (and on to a new start for a restart), to crashed
// otherwise, applying the restart policy.
func (s *Supervisor) exited(r *run, code int, known bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run != r || s.closed {
		return
	}
	if r.killTimer != nil {
		r.killTimer.Stop()
	}
	r.stopReadyTimerLocked()
	if r.stdinW != nil {
		_ = r.stdinW.Close()
	}
	s.run = nil
	ranFor := s.clock.Now().Sub(r.started)
	ev := wire.StateEvent{}
	if known {
		c := code
		ev.ExitCode, s.lastExit = &c, &c
	} else {
		s.lastExit = nil
		ev.Message = "exit code unknown: the process was adopted from a previous agent"
	}
	if r.stopRequested {
		s.stoppedLocked(r, ev, code)
		return
	}
	if r.readyFailed != "" {
		ev.Message = r.readyFailed
	}
	s.crashedLocked(ev, ranFor, code)
}

func (s *Supervisor) stoppedLocked(r *run, ev wire.StateEvent, code int) {
	s.con.notice("process exited with code %s after a stop request", codeText(ev.ExitCode))
	s.setStateLocked(wire.StateStopped, ev)
	busy := s.busy
	s.busy = ""
	if r.restartAfter && busy == ActionRestart {
		_ = s.spawnLocked()
	}
	s.saveLocked()
}

func (s *Supervisor) crashedLocked(ev wire.StateEvent, ranFor time.Duration, code int) {
	s.busy = ""
	d := s.crashes.onCrash(s.clock.Now(), ranFor, code)
	ev.CrashCount = s.crashes.total
	var next string
	switch {
	case d.gaveUp:
		s.crashLoops++
		next = fmt.Sprintf("crash loop: %d crashes within %v; not restarting until started manually",
			len(s.crashes.crashes), s.crashes.pol.CrashLoopWindow)
	case d.restart:
		next = fmt.Sprintf("restarting in %v", d.delay)
	}
	if next != "" {
		ev.Message = strings.TrimPrefix(ev.Message+"; "+next, "; ")
	}
	s.con.notice("process exited unexpectedly with code %s after %v%s", codeText(ev.ExitCode),
		ranFor.Round(time.Millisecond), suffix(ev.Message))
	s.setStateLocked(wire.StateCrashed, ev)
	if d.restart {
		s.scheduleRetryLocked(d.delay)
	}
	s.saveLocked()
}

// scheduleRetryLocked restarts the instance after delay unless something
// else (a manual action, Close) happens first.
func (s *Supervisor) scheduleRetryLocked(delay time.Duration) {
	s.cancelRetryLocked()
	gen := s.retryGen
	s.retryAt = s.clock.Now().Add(delay)
	s.retry = s.clock.AfterFunc(delay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if gen != s.retryGen || s.closed || s.state != wire.StateCrashed || s.manualStop {
			return
		}
		s.retry = nil
		s.restarts++
		s.con.notice("restarting after crash (%d so far)", s.crashes.total)
		_ = s.spawnLocked()
	})
}

func codeText(code *int) string {
	if code == nil {
		return "unknown"
	}
	return fmt.Sprint(*code)
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return "; " + msg
}

// pathless is err's message with the host path of an *fs.PathError cut to
// its base name ("fork/exec worldsrv: permission denied"): messages that
// reach operators over the wire name no host paths.
func pathless(err error) string {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path != "" {
		msg = strings.ReplaceAll(msg, pe.Path, filepath.Base(pe.Path))
	}
	return msg
}
