package admin

import (
	"sync"
	"time"

	"github.com/corrosion/corrosion/internal/backoff"
	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/internal/peerkey"
)

// Limiter defaults.
const (
	// DefaultFreeFailures is how many wrong passwords an address may send
	// before it is refused.
	DefaultFreeFailures = 3
	// DefaultBaseBlock is the first refusal period; each further failure
	// doubles it, up to DefaultMaxBlock.
	DefaultBaseBlock = 5 * time.Second
	DefaultMaxBlock  = 10 * time.Minute
	// DefaultForgetAfter: an address with no failure for this long (and
	// not blocked) starts afresh.
	DefaultForgetAfter = 15 * time.Minute
	// DefaultMaxTracked bounds the limiter's memory (addresses tracked).
	DefaultMaxTracked = 4096
)

// LimitConfig tunes the failed-login limiter; zero fields take defaults.
type LimitConfig struct {
	FreeFailures int
	BaseBlock    time.Duration
	MaxBlock     time.Duration
	ForgetAfter  time.Duration
	MaxTracked   int
}

func (c LimitConfig) withDefaults() LimitConfig {
	c.FreeFailures = flagval.Default(c.FreeFailures, DefaultFreeFailures)
	c.BaseBlock = flagval.Default(c.BaseBlock, DefaultBaseBlock)
	c.MaxBlock = flagval.Default(c.MaxBlock, DefaultMaxBlock)
	c.ForgetAfter = flagval.Default(c.ForgetAfter, DefaultForgetAfter)
	c.MaxTracked = flagval.Default(c.MaxTracked, DefaultMaxTracked)
	return c
}

// limiter refuses logins from an address that sent too many wrong
// passwords: after FreeFailures failures it is refused for BaseBlock, and
// each failure after that (one per block, since a blocked address is not
// even asked for its password) doubles the period up to MaxBlock. A right
// password forgets the address. Only failures are tracked, at most
// MaxTracked addresses: when full, idle entries are purged and then the
// least recently failed one is evicted. Both transports share one limiter;
// an address counts by its peerkey (an IPv6 host by its /64).
type limiter struct {
	cfg LimitConfig // immutable after newLimiter

	mu      sync.Mutex
	entries map[string]*limitEntry // guarded by mu; keyed by IP
}

type limitEntry struct {
	failures int
	last     time.Time // the last failure
	until    time.Time // refused before this
}

func newLimiter(cfg LimitConfig) *limiter {
	return &limiter{cfg: cfg.withDefaults(), entries: map[string]*limitEntry{}}
}

// allow reports whether addr may try a password at now, and when not, how
// long until it may.
func (l *limiter) allow(addr string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entries[peerkey.Of(addr)]
	if e == nil || !now.Before(e.until) {
		return true, 0
	}
	return false, e.until.Sub(now)
}

// fail records a wrong password from addr at now and returns the refusal
// period it started (zero: none yet).
func (l *limiter) fail(addr string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := peerkey.Of(addr)
	e := l.entries[key]
	if e != nil && l.forgettableLocked(e, now) {
		e = nil
	}
	if e == nil {
		l.makeRoomLocked(now)
		e = &limitEntry{}
		l.entries[key] = e
	}
	e.failures++
	e.last = now
	over := e.failures - l.cfg.FreeFailures
	if over < 0 {
		return 0
	}
	block := backoff.Doubled(l.cfg.BaseBlock, l.cfg.MaxBlock, over)
	e.until = now.Add(block)
	return block
}

// succeed forgets addr after a right password.
func (l *limiter) succeed(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.entries, peerkey.Of(addr))
}

// tracked is the number of addresses held.
func (l *limiter) tracked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

func (l *limiter) forgettableLocked(e *limitEntry, now time.Time) bool {
	return !now.Before(e.until) && now.Sub(e.last) >= l.cfg.ForgetAfter
}

// makeRoomLocked keeps the map under MaxTracked before an insert.
func (l *limiter) makeRoomLocked(now time.Time) {
	if len(l.entries) < l.cfg.MaxTracked {
		return
	}
	for k, e := range l.entries {
		if l.forgettableLocked(e, now) {
			delete(l.entries, k)
		}
	}
	if len(l.entries) < l.cfg.MaxTracked {
		return
	}
	var oldest string
	var oldestAt time.Time
	for k, e := range l.entries {
		if oldest == "" || e.last.Before(oldestAt) {
			oldest, oldestAt = k, e.last
		}
	}
	delete(l.entries, oldest)
}
