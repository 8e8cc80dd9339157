package admin

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/corrosion/corrosion/internal/flagval"
)

// Server defaults.
const (
	// DefaultMaxConns caps the admin sessions open at once, Source RCON and
	// WebRCON together.
	DefaultMaxConns = 16
	// DefaultIdleTimeout closes a session that sends nothing for this long.
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultAuthTimeout closes a Source RCON connection that has not
	// authenticated within this long of connecting.
	DefaultAuthTimeout = 10 * time.Second
	// DefaultCommandTimeout bounds one command's wait for the world; under
	// the agent's 10 s so that its operator gets our answer, not its own
	// timeout.
	DefaultCommandTimeout = 5 * time.Second
	// writeTimeout bounds writing one reply to a client.
	writeTimeout = 10 * time.Second
)

// ErrDisabled: New was given an empty password, which means RCON is off.
var ErrDisabled = errors.New("admin console disabled: empty rcon password")

// Config configures a Server.
type Config struct {
	// Password every session must give; empty turns RCON off (New fails
	// with ErrDisabled). Never logged.
	Password string
	// Console runs the commands. Required.
	Console Console
	// Logger; slog.DiscardHandler when nil.
	Logger *slog.Logger
	// Zero values below take the defaults above.
	MaxConns       int
	IdleTimeout    time.Duration
	AuthTimeout    time.Duration
	CommandTimeout time.Duration
	// Limit tunes the failed-password limiter.
	Limit LimitConfig
	// Now is the limiter's clock; time.Now when nil (tests inject one).
	Now func() time.Time
}

// Server is the admin console: ServeSource runs Source RCON on a listener,
// WebHandler serves WebRCON, and both share the password, the failed-login
// limiter and the session cap.
//
// Teardown (Close): the Source listeners are closed first so nothing new
// comes in, then every open session (both kinds) is closed, which cuts
// short commands waiting on the Console, then Close waits for the session
// goroutines.
type Server struct {
	cfg      Config       // immutable after New
	log      *slog.Logger // immutable after New
	limit    *limiter     // immutable after New
	passHash [32]byte     // immutable after New; sha256 of the password
	slots    chan struct{}
	sessions sync.WaitGroup

	// life is cancelled by Close; sessions and ServeSource end with it.
	life      context.Context
	kill      context.CancelFunc
	closeOnce sync.Once

	mu     sync.Mutex
	open   map[*session]struct{} // guarded by mu
	closed bool                  // guarded by mu
}

// session is one open admin connection of either kind; closing it ends
// its goroutine.
type session struct {
	close func()
}

// New checks cfg and returns a Server; nothing listens until ServeSource.
func New(cfg Config) (*Server, error) {
	if cfg.Password == "" {
		return nil, ErrDisabled
	}
	if cfg.Console == nil {
		return nil, errors.New("admin config: Console is required")
	}
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger.With("component", "admin"),
		limit:    newLimiter(cfg.Limit),
		passHash: sha256.Sum256([]byte(cfg.Password)),
		slots:    make(chan struct{}, cfg.MaxConns),
		open:     map[*session]struct{}{},
	}
	s.life, s.kill = context.WithCancel(context.Background())
	return s, nil
}

func (cfg Config) withDefaults() Config {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.MaxConns = flagval.Default(cfg.MaxConns, DefaultMaxConns)
	cfg.IdleTimeout = flagval.Default(cfg.IdleTimeout, DefaultIdleTimeout)
	cfg.AuthTimeout = flagval.Default(cfg.AuthTimeout, DefaultAuthTimeout)
	cfg.CommandTimeout = flagval.Default(cfg.CommandTimeout, DefaultCommandTimeout)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg
}

// Close ends every session and makes ServeSource return. Idempotent.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.kill() // ServeSource closes its listener on this
		s.mu.Lock()
		s.closed = true
		open := make([]*session, 0, len(s.open))
		for ss := range s.open {
			open = append(open, ss)
		}
		s.mu.Unlock()
		for _, ss := range open {
			ss.close()
		}
		s.sessions.Wait()
	})
}

// begin takes a session slot and registers closeFn for Close; false when
// the cap is reached or the server is closed. end undoes it.
func (s *Server) begin(closeFn func()) (*session, bool) {
	select {
	case s.slots <- struct{}{}:
	default:
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		<-s.slots
		return nil, false
	}
	ss := &session{close: closeFn}
	s.open[ss] = struct{}{}
	s.sessions.Add(1)
	return ss, true
}

func (s *Server) end(ss *session) {
	s.mu.Lock()
	delete(s.open, ss)
	s.mu.Unlock()
	ss.close()
	<-s.slots
	s.sessions.Done()
}

// authOutcome is the result of one password check.
type authOutcome uint8

const (
	authOK authOutcome = iota + 1
	authWrong
	// authBlocked: the address is refused for now; the password was not
	// even compared.
	authBlocked
)

// authenticate checks a password from addr ("ip:port") against the
// limiter and the configured password, in constant time. When blocked it
// also returns how long until addr may try again.
func (s *Server) authenticate(kind, addr, given string) (authOutcome, time.Duration) {
	now := s.cfg.Now()
	if ok, wait := s.limit.allow(addr, now); !ok {
		s.log.Debug("rcon login refused: address blocked after wrong passwords", "kind", kind, "addr", addr, "retry_in", wait)
		return authBlocked, wait
	}
	h := sha256.Sum256([]byte(given))
	if subtle.ConstantTimeCompare(h[:], s.passHash[:]) == 1 {
		s.limit.succeed(addr)
		s.log.Info("rcon login", "kind", kind, "addr", addr)
		return authOK, 0
	}
	if block := s.limit.fail(addr, now); block > 0 {
		s.log.Warn("rcon wrong password; address blocked", "kind", kind, "addr", addr, "for", block)
	} else {
		s.log.Info("rcon wrong password", "kind", kind, "addr", addr)
	}
	return authWrong, 0
}

// exec runs one command line for a session, bounded by CommandTimeout and
// cut short when ctx (the session's life) ends.
func (s *Server) exec(ctx context.Context, kind, addr, line string) Reply {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.CommandTimeout)
	defer cancel()
	r := Exec(ctx, s.cfg.Console, line)
	s.log.Info("rcon command", "kind", kind, "addr", addr, "command", clip(line, 120), "failed", r.Failed)
	return r
}

// Tracked is the number of addresses the failed-login limiter holds (for
// tests and metrics).
func (s *Server) Tracked() int { return s.limit.tracked() }
