package supervise

import (
	"fmt"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
)

// Readiness: with a ready_pattern an instance is starting until a console
// line matches (checkReady in start.go). It never hangs there: after
// ready_timeout_seconds it is reported running with a notice, or, with
// ready_timeout_action = "fail", its process tree is killed and the exit
// is a crash (the restart policy applies).

// readyTimeout is the readiness budget (default 5 minutes).
func (s *Supervisor) readyTimeout() time.Duration {
	if s.conf().ReadyTimeoutSeconds <= 0 {
		return config.DefaultReadyTimeoutSeconds * time.Second
	}
	return time.Duration(s.conf().ReadyTimeoutSeconds) * time.Second
}

// armReadyTimeoutLocked starts the readiness budget of r.
func (s *Supervisor) armReadyTimeoutLocked(r *run) {
	timeout := s.readyTimeout()
	r.readyTimer = s.clock.AfterFunc(timeout, func() { s.readyTimedOut(r, timeout) })
}

// stopReadyTimerLocked cancels the readiness budget (matched or exited).
func (r *run) stopReadyTimerLocked() {
	if r.readyTimer != nil {
		r.readyTimer.Stop()
		r.readyTimer = nil
	}
}

// readyTimedOut applies ready_timeout_action to r if it is still waiting
// for its line.
func (s *Supervisor) readyTimedOut(r *run, timeout time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run != r || s.state != wire.StateStarting || !r.readyPending.CompareAndSwap(true, false) {
		return
	}
	r.readyTimer = nil
	if s.conf().ReadyTimeoutAction == config.ReadyTimeoutFail {
		r.readyFailed = fmt.Sprintf("start failed: readiness not seen within %v (ready_pattern never matched)", timeout)
		s.con.notice("%s; killing the process tree", r.readyFailed)
		if err := killTree(r.id.PID); err != nil {
			s.log.Warn("kill after readiness timeout", "err", err)
		}
		return
	}
	msg := fmt.Sprintf("readiness not seen within %v (ready_pattern never matched); reported running", timeout)
	s.con.notice("%s", msg)
	s.setStateLocked(wire.StateRunning, wire.StateEvent{Message: msg})
}
