// Package supervise runs and watches the process of one managed game-server
// instance: start, graceful stop, force kill, crash detection with backoff
// restarts, readiness, console capture, and adoption of a process that
// outlived a previous agent.
//
// States and transitions (every change is reported to the Sink):
//
//	             Start                      ready_pattern matched
//	stopped ─────────────► starting ───────────────────────────► running
//	crashed ─┘               │   (no ready_pattern: at once;        │
//	                         │    ready timeout: at once, noticed)  │
//	   ▲  │                  │ Stop/Restart/stop line               │ Stop/Restart/stop line
//	   │  │                  ▼                                      ▼
//	   │  │               stopping ──── exit ───► stopped ◄── (restart: ──► starting)
//	   │  │                  │ stop timeout: kill the process tree
//	   │  └─ backoff elapsed, policy allows ──► starting
//	   └──── exit the agent did not ask for (from starting or running), or
//	         ready timeout with action "fail" (the process tree is killed)
//
// The child writes stdout and stderr to files in the instance's state
// directory and reads stdin from a FIFO there, so it never depends on the
// agent process: when the agent stops (or is killed), the game keeps
// running, and the next agent re-adopts it (adopt.go).
//
// Hooks, one per file: start.go, ready.go (the readiness budget), stop.go,
// exited.go, adopt.go, send.go. The crash policy is a pure function of state
// and time (policy.go); every timer runs on the injected Clock (clock.go).
// A game's environment is built in env.go. Console capture: tail.go
// follows each log file with a logReader (logreader.go: offsets,
// truncation, skipping unread output while throttled) and a lineSplitter
// (linesplit.go: carry, the 64 KiB cap); console.go throttles, keeps the
// backlog and forwards, and writes down the package's lock order.
// diewithparent.go binds a child to its parent's lifetime (an option the
// agent never sets; worldsrv's sidecar does), and exports.go gives other
// programs that supervise a child (worldsrv) the child's environment.
package supervise

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
)

// Sink receives what a supervisor reports. Calls are made in order, with
// the supervisor's or the console's lock held (the lock order is written at
// the console type): they must be quick and must not call back.
type Sink interface {
	State(id string, ev wire.StateEvent)
	Console(id string, lines []wire.ConsoleLine)
}

// Action is a power action. Status.Busy names the one in progress.
type Action string

// Power actions, named as the instance command funcs that ask for them.
const (
	ActionStart   Action = wire.FuncStart
	ActionStop    Action = wire.FuncStop
	ActionRestart Action = wire.FuncRestart
	ActionKill    Action = wire.FuncKill
)

// Errors returned by power actions.
var (
	ErrBusy           = errors.New("another power action is in progress")
	ErrAlreadyRunning = errors.New("instance is already running")
	ErrNotRunning     = errors.New("instance is not running")
	ErrClosed         = errors.New("supervisor is closed")
	ErrStartFailed    = errors.New("the process could not be started")
)

// Errors returned by Send.
var (
	ErrStdinFull  = errors.New("the game is not reading its input")
	ErrNoStdin    = errors.New("the console input of this process is not available")
	ErrMultiLine  = errors.New("the line must not contain a line break")
	ErrStdinWrite = errors.New("writing to the game's console input failed")
)

// Options configure a Supervisor.
type Options struct {
	Instance *config.Instance
	// License is the agent's license id: with it the game's environment
	// names the instance (EnvLicenseID, EnvInstanceID); "": not run by an
	// agent (worldsrv's sidecar).
	License string
	Policy  Policy
	Console ConsoleLimits
	Dir     string // the instance's state directory; created if missing
	Sink    Sink
	Logger  *slog.Logger
	Clock   Clock // nil: the system clock
	// StdinTimeout bounds a Send to a game that does not read its input
	// (0: 2 s).
	StdinTimeout time.Duration
	// DieWithParent binds the child to this process: it is killed when
	// this process ends in any way, kill -9 included on Linux
	// (diewithparent.go). Off by default: the agent's games outlive it,
	// unless its config sets games_die_with_agent (corrosion-panel dev).
	DieWithParent bool
	// SpawnCheck, when set, is asked before each spawn (start, restart,
	// crash restart); its error fails that start as ErrStartFailed (the
	// agent refuses to run games as root this way). Adoption is not
	// checked.
	SpawnCheck func() error
	// RCONStop, when set, sends an RCON command to the game: a graceful
	// stop of an instance whose config names StopRCON goes this way (its
	// failure falls back to the stop signal). Called off the lock.
	RCONStop func(command string) error
}

// Supervisor supervises one managed instance. Its methods are safe for
// concurrent use.
type Supervisor struct {
	// rs is what a spawn runs (the instance's config, the game's
	// environment, the ready pattern); Reconfigure replaces it, under mu,
	// for the next spawn. Read it through conf or rs.Load.
	rs      atomic.Pointer[runSpec]
	license string       // immutable after New; Options.License
	dir     string       // immutable after New
	sink    Sink         // immutable after New
	log     *slog.Logger // immutable after New
	con     *console     // immutable after New
	stdin   *stdinPipe   // immutable after New
	clock   Clock        // immutable after New
	// stdinTimeout bounds a write to a game that does not read its stdin;
	// immutable after New.
	stdinTimeout time.Duration
	// dieWithParent starts children bound to this process's lifetime;
	// immutable after New.
	dieWithParent bool
	// spawnCheck vetoes a spawn (Options.SpawnCheck); immutable after New.
	spawnCheck func() error
	// rconStop sends a stop over RCON (Options.RCONStop); immutable after New.
	rconStop func(command string) error

	// sendMu orders the lines written to stdin; it is taken before mu,
	// never while holding mu.
	sendMu sync.Mutex

	mu         sync.Mutex
	state      wire.State      // guarded by mu
	run        *run            // guarded by mu; the current process, nil if none
	busy       Action          // guarded by mu; the power action in progress, "" if none
	manualStop bool            // guarded by mu; an operator stopped it: no auto-restart
	crashes    crashTracker    // guarded by mu
	lastExit   *int            // guarded by mu; exit code of the last run
	retry      Timer           // guarded by mu; pending crash restart
	retryAt    time.Time       // guarded by mu
	retryGen   int             // guarded by mu; invalidates stale retry timers
	closed     bool            // guarded by mu
	saved      []byte          // guarded by mu; state.json as last written
	changed    chan struct{}   // guarded by mu; closed and replaced on each state change
	lastEvent  wire.StateEvent // guarded by mu; as last reported, re-sent by Announce
	restarts   int64           // guarded by mu; crash restarts since New
	crashLoops int64           // guarded by mu; times the crash-loop limit stopped the retries
}

// New creates a supervisor in state stopped. Call Adopt before the first
// Start to pick up a process left by a previous agent.
func New(opts Options) (*Supervisor, error) {
	cfg := opts.Instance
	if cfg == nil || !cfg.Managed() {
		return nil, errors.New("supervise: instance has no exec")
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("supervise %s: state dir: %w", cfg.ID, err)
	}
	s := &Supervisor{
		license: opts.License, dir: opts.Dir, sink: opts.Sink,
		log:          opts.Logger.With("component", "supervise", "instance", cfg.ID),
		con:          newConsole(cfg.ID, opts.Sink, opts.Console),
		state:        wire.StateStopped,
		crashes:      crashTracker{pol: opts.Policy},
		changed:      make(chan struct{}),
		clock:        opts.Clock,
		stdinTimeout: opts.StdinTimeout,
	}
	s.dieWithParent = opts.DieWithParent
	s.spawnCheck = opts.SpawnCheck
	s.rconStop = opts.RCONStop
	s.warnUnbound()
	if s.clock == nil {
		s.clock = realClock{}
	}
	if s.stdinTimeout <= 0 {
		s.stdinTimeout = defaultStdinTimeout
	}
	rs, err := s.newRunSpec(cfg)
	if err != nil {
		return nil, err
	}
	s.rs.Store(rs)
	if s.stdin, err = newStdinPipe(opts.Dir); err != nil {
		return nil, fmt.Errorf("supervise %s: %w", cfg.ID, err)
	}
	return s, nil
}

// ID is the instance id.
func (s *Supervisor) ID() string { return s.conf().ID }

// runSpec is what a spawn runs: the instance's config with what is derived
// from it. Immutable once stored.
type runSpec struct {
	cfg   *config.Instance
	env   []string       // the game's environment
	ready *regexp.Regexp // nil: running once spawned
}

func (s *Supervisor) newRunSpec(cfg *config.Instance) (*runSpec, error) {
	rs := &runSpec{cfg: cfg, env: gameEnviron(cfg, s.license)}
	if cfg.ReadyPattern != "" {
		re, err := regexp.Compile(cfg.ReadyPattern)
		if err != nil {
			return nil, fmt.Errorf("supervise %s: ready_pattern: %w", cfg.ID, err)
		}
		rs.ready = re
	}
	return rs, nil
}

// conf is the instance's config as the supervisor runs it now.
func (s *Supervisor) conf() *config.Instance { return s.rs.Load().cfg }

// Reconfigure replaces the instance's config (an instance_update): the
// next spawn (start, restart, crash restart) runs the new program, args
// and environment, and the stop and readiness rules are the new ones from
// now on. A process that is running keeps running as it was started. The
// id and the restart policy cannot change.
func (s *Supervisor) Reconfigure(cfg *config.Instance) error {
	if cfg == nil || !cfg.Managed() || cfg.ID != s.ID() {
		return errors.New("supervise: reconfigure needs a managed config of the same instance")
	}
	rs, err := s.newRunSpec(cfg)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rs.Store(rs)
	return nil
}

// Status is a snapshot of the supervisor (see wire.InstanceStatus).
type Status struct {
	State         wire.State
	UptimeSeconds int64
	PID           int
	ExitCode      *int   // of the last run
	CrashCount    int    // since the last manual start
	Busy          Action // the power action in progress
	RestartIn     *int64 // seconds until a pending crash restart
	ManualStop    bool
	Adopted       bool
	DroppedLines  int64 // lines the console throttle dropped
	SkippedBytes  int64 // output passed over unread while throttled
	Restarts      int64 // crash restarts (the restart policy's) since the supervisor was created
	CrashLoops    int64 // times the crash-loop limit stopped the retries, since then
}

// Status returns the current status.
func (s *Supervisor) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{State: s.state, CrashCount: s.crashes.total, Busy: s.busy,
		ManualStop: s.manualStop, DroppedLines: s.con.Dropped(), SkippedBytes: s.con.SkippedBytes(),
		Restarts: s.restarts, CrashLoops: s.crashLoops}
	if s.lastExit != nil {
		code := *s.lastExit
		st.ExitCode = &code
	}
	if r := s.run; r != nil {
		st.PID = r.id.PID
		st.Adopted = r.cmd == nil
		if s.state == wire.StateRunning || s.state == wire.StateStopping {
			st.UptimeSeconds = int64(s.clock.Now().Sub(r.started).Seconds())
		}
	}
	if s.retry != nil {
		in := ceilSeconds(s.retryAt.Sub(s.clock.Now()))
		st.RestartIn = &in
	}
	return st
}

// Wire is the status as the instance commands reply it; the caller adds
// the instance's id and game.
func (st Status) Wire() wire.InstanceStatus {
	return wire.InstanceStatus{Managed: true, State: st.State, UptimeSeconds: st.UptimeSeconds,
		PID: st.PID, ExitCode: st.ExitCode, CrashCount: st.CrashCount, Busy: string(st.Busy),
		RestartIn: st.RestartIn, ManualStop: st.ManualStop, Adopted: st.Adopted,
		DroppedLines: st.DroppedLines, SkippedBytes: st.SkippedBytes}
}

// Logs returns up to n recent console lines, oldest first.
func (s *Supervisor) Logs(n int) []wire.ConsoleLine { return s.con.last(n) }

// Changed returns a channel closed at the next state change.
func (s *Supervisor) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// setStateLocked moves to state and reports it.
func (s *Supervisor) setStateLocked(state wire.State, ev wire.StateEvent) {
	s.state = state
	ev.State = state
	if s.run != nil && ev.PID == 0 && state != wire.StateStopped && state != wire.StateCrashed {
		ev.PID = s.run.id.PID
	}
	if ev.CrashCount == 0 {
		ev.CrashCount = s.crashes.total
	}
	s.log.Info("state", "state", state, "exit_code", codeText(ev.ExitCode), "message", ev.Message)
	s.lastEvent = ev
	s.sink.State(s.conf().ID, ev)
	close(s.changed)
	s.changed = make(chan struct{})
}

// Announce re-reports the current state (after a NATS reconnect): the
// last event as it was sent, message included.
func (s *Supervisor) Announce() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastEvent.State == s.state {
		s.sink.State(s.conf().ID, s.lastEvent)
		return
	}
	ev := wire.StateEvent{State: s.state, CrashCount: s.crashes.total}
	if s.run != nil {
		ev.PID = s.run.id.PID
	}
	if s.state == wire.StateStopped || s.state == wire.StateCrashed {
		ev.ExitCode = s.lastExit
	}
	s.sink.State(s.conf().ID, ev)
}

// Close detaches the supervisor for an agent shutdown: it stops following
// the process and saves what a later agent needs to adopt it. The game
// process keeps running.
func (s *Supervisor) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.cancelRetryLocked()
	r := s.run
	s.mu.Unlock()
	if r != nil {
		close(r.stopped) // ends the liveness poll of an adopted process
		r.stopFollowing()
	}
	s.Checkpoint()
}

func (s *Supervisor) cancelRetryLocked() {
	if s.retry != nil {
		s.retry.Stop()
		s.retry = nil
	}
	s.retryGen++
}

// Inject adds lines from another source (e.g. WebRCON chat) to the
// console, through the same throttle and backlog as the process output.
func (s *Supervisor) Inject(stream string, lines []string) {
	deliver(s.con, stream, lines, time.Now())
}

// ceilSeconds is d in whole seconds, rounded up: a restart 300 ms away is
// "in 1 s", never "in 0 s".
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}
