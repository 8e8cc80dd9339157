package supervise

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// defaultStdinTimeout bounds a write to a child that does not read its
// stdin.
const defaultStdinTimeout = 2 * time.Second

// Send writes one line to the instance's stdin (its console). A line equal
// to the configured stop_command starts a stop, exactly as Stop would, so
// the exit that follows is a stop and not a crash.
func (s *Supervisor) Send(line string) error {
	if strings.ContainsAny(line, "\r\n") {
		return ErrMultiLine
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.run
	if r == nil || s.state == wire.StateStopped || s.state == wire.StateCrashed {
		return ErrNotRunning
	}
	if r.stdinW == nil {
		return ErrNoStdin
	}
	isStop := s.cfg.StopCommand != "" && strings.TrimSpace(line) == s.cfg.StopCommand
	if isStop {
		if err := s.stoppableLocked(); err != nil {
			return err
		}
	}
	if err := writeLine(r.stdinW, line, s.stdinTimeout); err != nil {
		return err
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

// writeLine writes line and a newline, giving up after timeout when the
// pipe is full (ErrStdinFull). Its errors name no host path: they reach
// operators.
func writeLine(w *os.File, line string, timeout time.Duration) error {
	_ = w.SetWriteDeadline(time.Now().Add(timeout))
	_, err := w.Write([]byte(line + "\n"))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		return ErrStdinFull
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%w: %v", ErrStdinWrite, err)
}
