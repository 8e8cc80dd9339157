package supervise

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// stdinWriteTimeout bounds a write to a child that does not read its stdin.
const stdinWriteTimeout = 2 * time.Second

// Send writes one line to the instance's stdin (its console). A line equal
// to the configured stop_command starts a stop, exactly as Stop would, so
// the exit that follows is a stop and not a crash.
func (s *Supervisor) Send(line string) error {
	if strings.ContainsAny(line, "\r\n") {
		return fmt.Errorf("send: the line must not contain a newline")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.run
	if r == nil || s.state == wire.StateStopped || s.state == wire.StateCrashed {
		return ErrNotRunning
	}
	if r.stdinW == nil {
		return fmt.Errorf("send: stdin of this process is not available")
	}
	isStop := s.cfg.StopCommand != "" && strings.TrimSpace(line) == s.cfg.StopCommand
	if isStop {
		if err := s.stoppableLocked(); err != nil {
			return err
		}
	}
	if err := writeLine(r.stdinW, line); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	if isStop {
		s.manualStop = true
		s.busy = ActionStop
		r.stopRequested = true
		s.setStateLocked(wire.StateStopping, wire.StateEvent{Message: "stop command sent to the console"})
		s.armKillLocked(r, s.stopTimeout())
	}
	return nil
}

// stopTimeout is the graceful stop budget; 0 kills at once.
func (s *Supervisor) stopTimeout() time.Duration {
	return max(s.cfg.StopTimeout(), 0)
}

// writeLine writes line and a newline, giving up after stdinWriteTimeout
// when the pipe is full.
func writeLine(w *os.File, line string) error {
	_ = w.SetWriteDeadline(time.Now().Add(stdinWriteTimeout))
	_, err := w.Write([]byte(line + "\n"))
	return err
}
