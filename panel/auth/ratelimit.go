package auth

import (
	"strings"
	"sync"
	"time"

	"github.com/corrosion/corrosion/internal/backoff"
	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/internal/peerkey"
)

// LimitOptions configure the failed-login rate limit; zero fields take
// the defaults in brackets.
type LimitOptions struct {
	MaxFailures int           // failures within Window that lock a key out [5]
	Window      time.Duration // [1 min]
	BaseLockout time.Duration // the first lockout; each further one doubles [1 min]
	MaxLockout  time.Duration // the longest lockout [15 min]
	MaxKeys     int           // keys remembered; memory stays bounded under a storm of names [10,000]
}

func (o *LimitOptions) defaults() {
	o.MaxFailures = flagval.Default(o.MaxFailures, 5)
	o.Window = flagval.Default(o.Window, time.Minute)
	o.BaseLockout = flagval.Default(o.BaseLockout, time.Minute)
	o.MaxLockout = flagval.Default(o.MaxLockout, 15*time.Minute)
	o.MaxKeys = flagval.Default(o.MaxKeys, 10_000)
}

// Limiter is the failed-login rate limit, kept per username and per
// remote address: MaxFailures failures within Window lock the key out for
// BaseLockout, doubling with each further lockout up to MaxLockout. A
// successful login clears its username's key (not its address's: one
// valid account must not reset an address that guesses others).
//
// A login reserves its attempt before the password is hashed (Reserve):
// an attempt in flight counts as a failure until it ends, so no more than
// MaxFailures attempts of a key are ever past the check at once, and a
// key locked by them stays locked for every request that comes after,
// however the requests interleave. Memory is bounded by MaxKeys: when
// full, stale keys go first, then the least recently failed (never a key
// with attempts in flight). Time is passed in, so the rules test without
// a clock. Safe for concurrent use.
type Limiter struct {
	opts LimitOptions // immutable after NewLimiter

	mu    sync.Mutex
	keys  map[string]*limitEntry // guarded by mu
	ended chan struct{}          // guarded by mu; closed (and replaced) when an attempt ends
}

// limitEntry is one key's record; every field is guarded by Limiter.mu.
type limitEntry struct {
	failures    int       // within the window starting at windowStart
	windowStart time.Time // when the current window began
	lockedUntil time.Time // zero: never locked
	lockouts    int       // lockouts so far (doubles the next one)
	lastFail    time.Time // the latest failure (eviction order)
	inFlight    int       // reserved attempts not ended yet
}

// NewLimiter returns a Limiter.
func NewLimiter(o LimitOptions) *Limiter {
	o.defaults()
	return &Limiter{opts: o, keys: map[string]*limitEntry{}, ended: make(chan struct{})}
}

// Attempt is a login attempt reserved on its keys. End it exactly once,
// with Fail, Succeed or Cancel.
type Attempt struct {
	l    *Limiter // immutable
	keys []string // immutable
}

// Reserve takes an attempt on every key before a password is checked.
// It returns the attempt; or wait > 0 when a key is locked out; or, when
// a key's failures and attempts in flight already reach MaxFailures, a
// channel closed when some attempt ends (reserve again then: the attempts
// in flight may be about to lock the key).
func (l *Limiter) Reserve(now time.Time, keys ...string) (a *Attempt, wait time.Duration, full <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		e := l.keys[k]
		if e == nil {
			continue
		}
		if e.lockedUntil.After(now) {
			wait = max(wait, e.lockedUntil.Sub(now))
		}
		failures := e.failures
		if now.Sub(e.windowStart) >= l.opts.Window {
			failures = 0
		}
		if failures+e.inFlight >= l.opts.MaxFailures {
			full = l.ended
		}
	}
	if wait > 0 {
		return nil, wait, nil
	}
	if full != nil {
		return nil, 0, full
	}
	for _, k := range keys {
		l.entryLocked(now, k).inFlight++
	}
	return &Attempt{l: l, keys: keys}, 0, nil
}

// Blocked says whether a new attempt on key would not be reserved at now:
// the key is locked out, or its failures and attempts in flight already
// reach MaxFailures. For diagnostics and tests; Reserve is the rule.
func (l *Limiter) Blocked(now time.Time, key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.keys[key]
	if e == nil {
		return false
	}
	failures := e.failures
	if now.Sub(e.windowStart) >= l.opts.Window {
		failures = 0
	}
	return e.lockedUntil.After(now) || failures+e.inFlight >= l.opts.MaxFailures
}

// Fail ends the attempt as a failed login and returns how long its keys
// are now locked out (0: not yet).
func (a *Attempt) Fail(now time.Time) time.Duration {
	a.l.mu.Lock()
	defer a.l.mu.Unlock()
	a.l.endLocked(a.keys)
	return a.l.failLocked(now, a.keys)
}

// Succeed ends the attempt as a login and clears userKey.
func (a *Attempt) Succeed(userKey string) {
	a.l.mu.Lock()
	defer a.l.mu.Unlock()
	a.l.endLocked(a.keys)
	delete(a.l.keys, userKey)
}

// Cancel ends the attempt without an outcome (the password could not be
// checked, or the account is disabled).
func (a *Attempt) Cancel() {
	a.l.mu.Lock()
	defer a.l.mu.Unlock()
	a.l.endLocked(a.keys)
}

func (l *Limiter) endLocked(keys []string) {
	for _, k := range keys {
		if e := l.keys[k]; e != nil && e.inFlight > 0 {
			e.inFlight--
		}
	}
	close(l.ended)
	l.ended = make(chan struct{})
}

// UserKey and AddrKey name the limiter's keys for a username and a remote
// address (internal/peerkey: IPv6 addresses count per /64, one host holds a
// whole /64; an IPv4-mapped address counts as its IPv4).
func UserKey(name string) string { return "user:" + strings.ToLower(name) }

// AddrKey is the key of a remote address (host only, no port).
func AddrKey(addr string) string { return "addr:" + peerkey.Of(addr) }

// failLocked records a failed login for each key and returns how long
// they are now locked out (0: not yet).
func (l *Limiter) failLocked(now time.Time, keys []string) time.Duration {
	var wait time.Duration
	for _, k := range keys {
		e := l.entryLocked(now, k)
		if now.Sub(e.windowStart) >= l.opts.Window {
			e.failures, e.windowStart = 0, now
		}
		if !e.lockedUntil.IsZero() && now.Sub(e.lockedUntil) >= l.opts.MaxLockout {
			e.lockouts = 0 // quiet for a whole max lockout: forgiven
		}
		e.failures++
		e.lastFail = now
		if e.failures >= l.opts.MaxFailures {
			d := backoff.Doubled(l.opts.BaseLockout, l.opts.MaxLockout, e.lockouts)
			e.lockedUntil = now.Add(d)
			e.lockouts++
			e.failures, e.windowStart = 0, now
		}
		if e.lockedUntil.After(now) {
			wait = max(wait, e.lockedUntil.Sub(now))
		}
	}
	return wait
}

// Len is the number of keys remembered.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.keys)
}

func (l *Limiter) entryLocked(now time.Time, k string) *limitEntry {
	if e := l.keys[k]; e != nil {
		return e
	}
	if len(l.keys) >= l.opts.MaxKeys {
		l.evictLocked(now)
	}
	e := &limitEntry{windowStart: now}
	l.keys[k] = e
	return e
}

// evictLocked drops every stale key (window over, not locked, lockouts
// forgiven); when none is stale, the least recently failed key.
func (l *Limiter) evictLocked(now time.Time) {
	var oldest string
	var oldestAt time.Time
	for k, e := range l.keys {
		if e.inFlight > 0 {
			continue // its attempt will end on it
		}
		if l.staleLocked(now, e) {
			delete(l.keys, k)
			continue
		}
		if oldest == "" || e.lastFail.Before(oldestAt) {
			oldest, oldestAt = k, e.lastFail
		}
	}
	if len(l.keys) >= l.opts.MaxKeys && oldest != "" {
		delete(l.keys, oldest)
	}
}

func (l *Limiter) staleLocked(now time.Time, e *limitEntry) bool {
	return now.Sub(e.windowStart) >= l.opts.Window && now.Sub(e.lockedUntil) >= l.opts.MaxLockout
}
