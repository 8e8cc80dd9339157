package etherlink

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/corrosion/corrosion/internal/portowner"
)

// flapWindow: a connection the sidecar closes this soon after it opened is
// a refusal (a wrong or missing link token), not a working link.
const flapWindow = time.Second

// closedByPeer reports whether a connection ended because the sidecar
// closed it (rather than a write timeout or our own shutdown).
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// stateLog logs the link's state changes, each once, never each retry:
//
//	connected  when a connection opens (while the link flaps: only once it
//	           has lasted flapWindow)
//	lost       when it ends, with the reason; one the sidecar closed within flapWindow
//	           says it may be a refusal, and the flaps after it are silent
//	           until a connection lasts
//	down       at the first failed dial of an outage (or after a flap);
//	           later ones are silent
//	foreign    the first time in an outage that the listener on the port
//	           is not our sidecar (ErrNotOurSidecar), naming the process
//	           that holds the port; later refusals are silent
//
// It belongs to Run's goroutine; the delayed "connected" line reads only
// its own arguments.
type stateLog struct {
	log         *slog.Logger  // immutable
	addr        string        // immutable; the sidecar's address
	maxBackoff  time.Duration // immutable
	saidDown    bool          // Run's goroutine only: this outage's failed dial was logged
	saidForeign bool          // Run's goroutine only: this outage's foreign listener was named
	flapping    bool          // Run's goroutine only: the last connection was closed within flapWindow
}

// connected logs a new connection (later while flapping) and returns the
// function to call when it ends.
func (s *stateLog) connected(args ...any) (ended func()) {
	logIt := func() { s.log.Info("ether link connected", args...) }
	if !s.flapping {
		logIt()
		return func() {}
	}
	t := time.AfterFunc(flapWindow, logIt)
	return func() { t.Stop() }
}

// ended logs the end of a dial attempt: connected (and how long it was up)
// or not, why it ended, and the wait before the next one.
func (s *stateLog) ended(connected bool, upFor time.Duration, err error, retryIn time.Duration) {
	up := upFor.Round(time.Millisecond)
	switch {
	case connected && (upFor >= flapWindow || !closedByPeer(err)):
		s.log.Warn("ether link lost", "reason", err, "up_for", up, "retry_in", retryIn)
		s.saidDown, s.saidForeign, s.flapping = false, false, false
	case connected && !s.flapping:
		s.log.Warn("ether link closed by the sidecar right after connecting (a sidecar refusing our link token does this); quiet until a connection lasts",
			"reason", err, "up_for", up, "retry_in", retryIn, "max_backoff", s.maxBackoff)
		s.saidDown, s.saidForeign, s.flapping = false, false, true
	case connected:
		// another flap: said already
	case errors.Is(err, ErrNotOurSidecar):
		if !s.saidForeign {
			s.log.Warn("the ether port is held by a process that is not this world's sidecar; not linking to it (logins are answered \"login server offline\"), quietly until our own sidecar answers",
				append([]any{"reason", err, "retry_in", retryIn, "max_backoff", s.maxBackoff}, holder(s.addr)...)...)
		}
		s.saidDown, s.saidForeign = true, true
	case !s.saidDown:
		s.log.Warn("ether link down; redialling with backoff, quietly until it is up",
			"err", err, "retry_in", retryIn, "max_backoff", s.maxBackoff)
		s.saidDown = true
	}
}

// holder names the process listening on addr's port, as log attributes:
// holder_pid and holder_command (its program, never its arguments: they
// may hold secrets), or holder_unknown with why not.
func holder(addr string) []any {
	_, p, _ := net.SplitHostPort(addr)
	port, err := strconv.Atoi(p)
	if err != nil {
		return []any{"holder_unknown", err.Error()}
	}
	o, err := portowner.Lookup(port)
	if err != nil {
		return []any{"holder_unknown", err.Error()}
	}
	return []any{"holder_pid", o.PID, "holder_command", o.Program}
}

// logEvery is the least time between two log lines of one logLimiter.
const logEvery = 10 * time.Second

// logLimiter logs at most one line per logEvery and says how many it held
// back in between.
type logLimiter struct {
	mu         sync.Mutex
	last       time.Time // guarded by mu; when it last logged
	suppressed int       // guarded by mu; lines held back since
}

func (l *logLimiter) log(log *slog.Logger, msg string, args ...any) {
	now := time.Now()
	l.mu.Lock()
	if !l.last.IsZero() && now.Sub(l.last) < logEvery {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	held := l.suppressed
	l.last, l.suppressed = now, 0
	l.mu.Unlock()
	log.Warn(msg, append(args, "held_back", held)...)
}
