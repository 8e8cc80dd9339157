package supervise

import (
	"fmt"
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
	switch {
	case d.gaveUp:
		ev.Message = fmt.Sprintf("crash loop: %d crashes within %v; not restarting until started manually",
			len(s.crashes.crashes), s.crashes.pol.CrashLoopWindow)
	case d.restart:
		ev.Message = fmt.Sprintf("restarting in %v", d.delay)
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
