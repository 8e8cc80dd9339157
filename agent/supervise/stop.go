package supervise

import (
	"fmt"

	"github.com/corrosion/corrosion/agent/config"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// Stop stops the instance gracefully: stop_command on stdin if configured,
// else SIGTERM to its process group (CTRL_BREAK on Windows); after the stop
// timeout the whole process tree is killed. It returns once the stop has
// begun; the exit is reported as a state event. A stop also cancels a
// pending crash restart and disables auto-restart until the next manual
// start.
func (s *Supervisor) Stop() error { return s.stop(operatorStop) }

// StopForHostShutdown stops the instance as Stop does, but it is not an
// operator's stop: the manual-stop flag is left as it was, so autostart
// starts the instance again at the next boot. The exit is still a stop (no
// crash restart), and a pending crash restart is cancelled.
func (s *Supervisor) StopForHostShutdown() error { return s.stop(hostShutdownStop) }

// stopKind tells an operator's stop from the host shutting down.
type stopKind int

const (
	operatorStop     stopKind = iota // marks a manual stop: no autostart until the next manual start
	hostShutdownStop                 // leaves the manual-stop flag as it was
)

func (s *Supervisor) stop(kind stopKind) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.stoppableLocked(); err != nil {
		return err
	}
	cancelled := "pending restart cancelled"
	if kind == operatorStop {
		s.manualStop = true
	} else {
		cancelled += ": host shutdown"
	}
	if s.run == nil { // crashed, restart pending: cancel it
		s.cancelRetryLocked()
		s.setStateLocked(wire.StateStopped, wire.StateEvent{ExitCode: s.lastExit, Message: cancelled})
		s.saveLocked()
		return nil
	}
	s.beginStopLocked(ActionStop, false)
	return nil
}

// Restart stops the instance gracefully and starts it again; a stopped or
// crashed instance is simply started.
func (s *Supervisor) Restart() error {
	s.mu.Lock()
	if s.run == nil {
		s.mu.Unlock()
		return s.Start(true)
	}
	defer s.mu.Unlock()
	if err := s.stoppableLocked(); err != nil {
		return err
	}
	s.manualStop = false
	s.crashes.reset()
	s.beginStopLocked(ActionRestart, true)
	return nil
}

// Kill force-kills the process tree at once. It bypasses the busy check so
// an operator can end a stop that hangs.
func (s *Supervisor) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if !s.state.CanKill() {
		return ErrNotRunning
	}
	r := s.run // set in every state with a process
	s.manualStop = true
	r.stopRequested = true
	r.restartAfter = false
	if s.busy == "" {
		s.busy = ActionKill
	}
	if s.state != wire.StateStopping {
		s.setStateLocked(wire.StateStopping, wire.StateEvent{Message: "kill requested"})
	}
	s.con.notice("killing process tree of pid %d", r.id.PID)
	if err := killTree(r.id.PID); err != nil {
		return fmt.Errorf("kill the process tree: %w", err)
	}
	return nil
}

// actionableLocked refuses a power action while the supervisor is closed or
// another action (or a stop) is still in progress.
func (s *Supervisor) actionableLocked() error {
	switch {
	case s.closed:
		return ErrClosed
	case s.busy != "":
		return fmt.Errorf("%w (%s)", ErrBusy, s.busy)
	case s.state == wire.StateStopping:
		return fmt.Errorf("%w (stopping)", ErrBusy)
	}
	return nil
}

// stoppableLocked checks that a stop or restart can begin now.
func (s *Supervisor) stoppableLocked() error {
	if err := s.actionableLocked(); err != nil {
		return err
	}
	if s.state.CanStop() || s.state == wire.StateCrashed && s.retry != nil {
		return nil
	}
	return ErrNotRunning
}

// beginStopLocked asks the process to stop and arms the kill timer.
func (s *Supervisor) beginStopLocked(action Action, restart bool) {
	r := s.run
	s.busy = action
	r.stopRequested = true
	r.restartAfter = restart
	s.setStateLocked(wire.StateStopping, wire.StateEvent{})
	timeout := s.stopTimeout()
	cfg := s.conf()
	switch {
	case cfg.StopRCON != "" && s.rconStop != nil:
		s.con.notice("stopping: sending %q over RCON", cfg.StopRCON)
		go s.stopOverRCON(r, cfg)
	case cfg.StopCommand != "" && r.stdinW != nil:
		s.con.notice("stopping: sending %q to the console", cfg.StopCommand)
		if err := writeLine(r.stdinW, cfg.StopCommand, s.stdinTimeout); err != nil {
			s.con.notice("stop command failed (%v); sending the stop signal", err)
			_ = signalStop(r.id.PID, cfg.StopSignal)
		}
	default:
		s.con.notice("stopping: sending the stop signal")
		if err := signalStop(r.id.PID, cfg.StopSignal); err != nil {
			s.con.notice("stop signal failed: %v", err)
		}
	}
	s.armKillLocked(r, timeout)
}

// stopOverRCON sends cfg's RCON stop command (off the lock: it is network
// I/O); when that fails, r gets the stop signal instead, if it still runs.
func (s *Supervisor) stopOverRCON(r *run, cfg *config.Instance) {
	err := s.rconStop(cfg.StopRCON)
	if err == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run != r {
		return // it has exited meanwhile (a server may quit before it answers)
	}
	s.con.notice("rcon stop failed (%v); sending the stop signal", err)
	_ = signalStop(r.id.PID, cfg.StopSignal)
}

// armKillLocked force-kills r's tree if it has not exited after timeout.
func (s *Supervisor) armKillLocked(r *run, timeout time.Duration) {
	if r.killTimer != nil {
		r.killTimer.Stop()
	}
	r.killTimer = s.clock.AfterFunc(timeout, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.run != r {
			return
		}
		s.con.notice("still running %v after the stop request; killing the process tree", timeout)
		if err := killTree(r.id.PID); err != nil {
			s.log.Warn("kill after stop timeout", "err", err)
		}
	})
}
