package sidecar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/supervise"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/ether/proto"
)

// Restart policy of the sidecar: the DESIGN.md backoff, and no crash-loop
// limit (CrashLoopCount 0), because a world whose sidecar the supervisor
// gave up on would answer every login "login server offline" until it is
// restarted by hand; retrying every 30 s costs nothing.
var policy = supervise.Policy{
	Restart:        config.RestartAlways, // even a clean exit we did not ask for
	BackoffInitial: time.Second,
	BackoffMax:     30 * time.Second,
	HealthyAfter:   time.Minute, // a run this long starts the backoff again at 1 s
	CrashLoopCount: 0,
}

// readyLine is what ether logs once it serves (the supervisor's state moves
// from starting to running on it).
const readyLine = `ether ready`

// Sidecar is one world's ether process. Its methods are safe for
// concurrent use.
type Sidecar struct {
	cfg     Config                // immutable after New, defaults applied
	bin     string                // immutable after New
	dir     string                // immutable after New; the supervisor's state dir
	tempDir bool                  // immutable after New; dir is ours to remove
	inst    *config.Instance      // immutable after New
	log     *slog.Logger          // immutable after New; component=ether
	sink    *logSink              // immutable after New
	sup     *supervise.Supervisor // immutable after New

	startOnce sync.Once
	startErr  error // set by startOnce
	stopOnce  sync.Once
	stopErr   error // set by stopOnce

	// mu orders a Start's spawn against Stop: no ether starts once Stop
	// has begun.
	mu       sync.Mutex
	stopping bool // guarded by mu
}

// New checks cfg, finds the ether binary and prepares the supervisor.
// Nothing runs until Start.
func New(cfg Config) (*Sidecar, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	bin, err := findBinary(cfg.Binary)
	if err != nil {
		return nil, err
	}
	s := &Sidecar{cfg: cfg, bin: bin, dir: cfg.Dir, log: cfg.Logger.With("component", "ether")}
	if s.dir == "" {
		if s.dir, err = os.MkdirTemp("", "worldsrv-ether-"); err != nil {
			return nil, fmt.Errorf("sidecar: state dir: %w", err)
		}
		s.tempDir = true
	}
	s.inst = &config.Instance{ID: "ether", Game: "ether", Root: s.dir, Exec: bin, Args: []string{"run"},
		Env: cfg.environment(), Restart: policy.Restart, ReadyPattern: readyLine,
		StopTimeoutSeconds: int((cfg.StopTimeout + time.Second - 1) / time.Second)}
	s.sink = &logSink{log: s.log}
	s.sup, err = supervise.New(supervise.Options{Instance: s.inst, Policy: policy, Dir: s.dir, Sink: s.sink,
		Logger: cfg.Logger, Console: supervise.ConsoleLimits{MaxLogBytes: 4 << 20}, DieWithParent: true})
	if err != nil {
		s.removeTemp()
		return nil, fmt.Errorf("sidecar: %w", err)
	}
	return s, nil
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.MigrateTimeout == 0 {
		c.MigrateTimeout = DefaultMigrateTimeout
	}
	if c.StopTimeout == 0 {
		c.StopTimeout = DefaultStopTimeout
	}
	return c
}

// Addr is ether's world link address, for the world's link client.
func (s *Sidecar) Addr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.cfg.port()))
}

// Start runs `ether migrate` and then starts `ether run` under the
// supervisor. It returns once ether is spawned; Wait waits for its port.
// Only the first call does anything.
func (s *Sidecar) Start(ctx context.Context) error {
	s.startOnce.Do(func() {
		if err := s.migrate(ctx); err != nil {
			s.startErr = err
			return
		}
		s.startErr = s.spawn()
	})
	return s.startErr
}

// ErrStopped is returned by a Start that Stop overtook.
var ErrStopped = errors.New("sidecar: stopped")

func (s *Sidecar) spawn() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return ErrStopped
	}
	if err := s.sup.Start(true); err != nil {
		return fmt.Errorf("sidecar: start ether: %w", err)
	}
	s.log.Info("ether started", "pid", s.sup.Status().PID, "addr", s.Addr(), "binary", s.bin)
	return nil
}

// Status is the supervisor's view of ether: state, pid, crash restarts.
func (s *Sidecar) Status() supervise.Status { return s.sup.Status() }

// PID is ether's current process id, 0 while none runs.
func (s *Sidecar) PID() int { return s.sup.Status().PID }

// Wait polls until ether has said it is ready (the supervisor reports it
// running) and its port accepts a TCP connection (see the package doc:
// before the world's own link dials). Both, because the port alone could be
// another program's. It gives up at once when ether has crashed and waits
// for its restart (it could not bind its port, say: the supervisor
// restarts it, and the world's link finds it when it serves), and without a deadline on ctx
// after DefaultWaitTimeout. Its error quotes ether's last lines.
func (s *Sidecar) Wait(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultWaitTimeout)
		defer cancel()
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var d net.Dialer
	err := errors.New("ether has not logged that it is ready")
	for {
		if st := s.sup.Status(); st.State == wire.StateCrashed {
			return fmt.Errorf("sidecar: ether exited before it was ready (%d crashes)%s",
				st.CrashCount, quote(s.sink.lastLines()))
		}
		if s.sup.Status().State == wire.StateRunning {
			var c net.Conn
			if c, err = d.DialContext(ctx, "tcp", s.Addr()); err == nil {
				s.leave(c)
				return nil
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			st := s.sup.Status()
			return fmt.Errorf("sidecar: ether not ready on %s (%w; state %s, %d crashes): %v%s",
				s.Addr(), ctx.Err(), st.State, st.CrashCount, err, quote(s.sink.lastLines()))
		}
	}
}

// leave closes Wait's probe connection. With a link token it first
// presents the token, so ether sees a world that links and leaves (two info
// lines) rather than an intruder it refuses (a warning at every start).
func (s *Sidecar) leave(c net.Conn) {
	defer c.Close()
	if s.cfg.LinkToken != "" {
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		_ = proto.WriteLinkAuth(c, s.cfg.LinkToken)
	}
}

// Stop stops ether: SIGTERM to its process group, the whole tree killed
// after StopTimeout or when ctx ends, whichever comes first; a pending
// crash restart is cancelled. It returns once ether is gone. Only the first
// call does anything; later calls return its result.
func (s *Sidecar) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() { s.stopErr = s.stop(ctx) })
	return s.stopErr
}

func (s *Sidecar) stop(ctx context.Context) error {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	defer s.removeTemp()
	defer s.sup.Close()
	err := s.sup.Stop()
	if err != nil && !errors.Is(err, supervise.ErrNotRunning) && !errors.Is(err, supervise.ErrBusy) {
		return fmt.Errorf("sidecar: stop ether: %w", err)
	}
	if err := s.waitGone(ctx); err == nil {
		return nil
	}
	pid := s.PID()
	s.log.Warn("ether did not stop in time; killing it", "pid", pid)
	_ = s.sup.Kill()
	kctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.waitGone(kctx); err != nil {
		return fmt.Errorf("sidecar: ether (pid %d) still runs after a kill: %w", pid, err)
	}
	return nil
}

// waitGone waits until no ether process runs and none is pending.
func (s *Sidecar) waitGone(ctx context.Context) error {
	for {
		changed := s.sup.Changed()
		st := s.sup.Status()
		if st.PID == 0 && (st.State == wire.StateStopped || st.State == wire.StateCrashed) && st.RestartIn == nil {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *Sidecar) removeTemp() {
	if s.tempDir {
		if err := os.RemoveAll(s.dir); err != nil {
			s.log.Warn("remove the sidecar's state dir", "dir", s.dir, "err", err)
		}
	}
}
