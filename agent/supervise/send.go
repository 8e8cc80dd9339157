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
	if s.conf().StopCommand != "" && strings.TrimSpace(line) == s.conf().StopCommand {
		return s.sendStop(line)
	}
	s.sendMu.Lock() // one line at a time, in order
	defer s.sendMu.Unlock()
	s.mu.Lock()
	w, err := s.stdinLocked()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	// Without s.mu: a game that does not read its input must not hold up
	// status, heartbeats and events for the write timeout.
	return writeLine(w, line, s.stdinTimeout)
}

// sendStop writes the stop command typed on the console and begins the
// stop, under the lock: the check, the write and the state change are one
// step.
func (s *Supervisor) sendStop(line string) error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.stdinLocked()
	if err != nil {
		return err
	}
	if err := s.stoppableLocked(); err != nil {
		return err
	}
	if err := writeLine(w, line, s.stdinTimeout); err != nil {
		return err
	}
	r := s.run
	s.manualStop = true
	s.busy = ActionStop
	r.stopRequested = true
	s.setStateLocked(wire.StateStopping, wire.StateEvent{Message: "stop command sent to the console"})
	s.armKillLocked(r, s.stopTimeout())
	return nil
}

// stdinLocked is the agent's end of the running process's stdin.
func (s *Supervisor) stdinLocked() (*os.File, error) {
	r := s.run
	if r == nil || s.state == wire.StateStopped || s.state == wire.StateCrashed {
		return nil, ErrNotRunning
	}
	if r.stdinW == nil {
		return nil, ErrNoStdin
	}
	return r.stdinW, nil
}

// stopTimeout is the graceful stop budget; 0 kills at once.
func (s *Supervisor) stopTimeout() time.Duration {
	return max(s.conf().StopTimeout(), 0)
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
	case errors.Is(err, os.ErrClosed):
		return ErrNotRunning // the process exited during the write
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%w: %v", ErrStdinWrite, err)
}
