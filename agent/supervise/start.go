package supervise

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
)

// Start starts the instance. A manual start (from an operator) clears a
// previous manual stop and the crash history; autostart and crash restarts
// are not manual.
func (s *Supervisor) Start(manual bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.actionableLocked(); err != nil {
		return err
	}
	if !s.state.CanStart() { // starting or running: stopping is busy above
		return ErrAlreadyRunning
	}
	if !manual && s.manualStop {
		return fmt.Errorf("instance was stopped by an operator; start it manually")
	}
	if manual {
		s.manualStop = false
		s.crashes.reset()
	}
	s.cancelRetryLocked()
	return s.spawnLocked()
}

// spawnLocked starts the process and moves to starting (or running when
// there is no ready_pattern).
func (s *Supervisor) spawnLocked() error {
	r, err := s.spawn()
	if err != nil {
		s.log.Warn("start failed", "err", err) // with paths, for the host's operator
		msg := "start failed: " + pathless(err)
		s.con.notice("%s", msg)
		s.setStateLocked(wire.StateCrashed, wire.StateEvent{Message: msg})
		return fmt.Errorf("%w: %s", ErrStartFailed, pathless(err))
	}
	s.run = r
	s.lastExit = nil
	go s.waitExit(r)
	s.con.notice("started %s (pid %d)", s.conf().Exec, r.id.PID)
	if r.ready != nil {
		s.setStateLocked(wire.StateStarting, wire.StateEvent{})
		s.armReadyTimeoutLocked(r)
	} else {
		s.setStateLocked(wire.StateRunning, wire.StateEvent{})
	}
	s.saveLocked()
	return nil
}

// spawn execs the configured command with stdout/stderr appended to the
// log files and stdin on the FIFO, in a session of its own.
func (s *Supervisor) spawn() (*run, error) {
	if s.spawnCheck != nil {
		if err := s.spawnCheck(); err != nil {
			return nil, err
		}
	}
	files, offsets, err := s.openChildFiles()
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	cmd := exec.Command(s.conf().Exec, s.conf().Args...)
	cmd.Dir = s.conf().Root
	cmd.Env = s.rs.Load().env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[1], files[2]
	setProcAttrs(cmd)
	if err := s.startCmd(cmd); err != nil {
		return nil, err
	}
	id, err := identify(cmd.Process.Pid)
	if err != nil {
		id = ident{PID: cmd.Process.Pid} // exited already; waitExit reports it
	}
	r := &run{id: id, cmd: cmd, started: s.clock.Now(), stopped: make(chan struct{})}
	if w, err := s.stdin.writer(); err == nil {
		r.stdinW = w
	} else {
		s.log.Warn("stdin unavailable", "err", err)
	}
	r.ready = s.rs.Load().ready
	r.readyPending.Store(r.ready != nil) // before the tailers can see a line
	s.startFollowing(r, offsets)
	return r, nil
}

// openChildFiles opens stdin, stdout and stderr for the child and returns
// the log offsets at which this run's output starts.
func (s *Supervisor) openChildFiles() ([]*os.File, map[string]int64, error) {
	in, err := s.stdin.childEnd()
	if err != nil {
		return nil, nil, fmt.Errorf("open stdin: %w", err)
	}
	files := []*os.File{in}
	offsets := map[string]int64{}
	for _, stream := range []string{wire.StreamStdout, wire.StreamStderr} {
		f, err := os.OpenFile(s.logPath(stream), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			for _, g := range files {
				g.Close()
			}
			return nil, nil, fmt.Errorf("open %s log: %w", stream, err)
		}
		if fi, err := f.Stat(); err == nil {
			offsets[stream] = fi.Size()
		}
		files = append(files, f)
	}
	return files, offsets, nil
}

// ansi matches terminal escape sequences (CSI and OSC).
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]`)

// StripANSI removes terminal escape sequences from a console line.
func StripANSI(s string) string {
	if !strings.ContainsRune(s, 0x1b) {
		return s
	}
	return ansi.ReplaceAllString(s, "")
}

// checkReady moves a starting instance to running when a line matches
// ready_pattern (ANSI stripped).
func (s *Supervisor) checkReady(r *run, lines [][]byte) {
	if !r.readyPending.Load() {
		return
	}
	for _, l := range lines {
		if !r.ready.MatchString(StripANSI(string(l))) {
			continue
		}
		s.mu.Lock()
		if s.run == r && s.state == wire.StateStarting && r.readyPending.CompareAndSwap(true, false) {
			r.stopReadyTimerLocked()
			s.setStateLocked(wire.StateRunning, wire.StateEvent{})
		}
		s.mu.Unlock()
		return
	}
}
