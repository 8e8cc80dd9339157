package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/corrosion/corrosion/panel/store"
)

// CookieName is the session cookie.
const CookieName = "corrosion_session"

// Session lifetimes: a session ends after DefaultIdleTimeout without a
// request, and DefaultMaxAge after login whatever happens.
const (
	DefaultIdleTimeout = 12 * time.Hour
	DefaultMaxAge      = 7 * 24 * time.Hour
)

// touchEvery bounds the writes idle tracking costs: last_seen moves at most
// once a minute per session, not on every request.
const touchEvery = time.Minute

const tokenLen = 32

// SessionStore is what Sessions needs of the database (panel/store).
type SessionStore interface {
	UserByName(ctx context.Context, name string) (store.User, error)
	CreateSession(ctx context.Context, tokenHash []byte, userID int64, now, expiresAt time.Time) error
	SessionByHash(ctx context.Context, tokenHash []byte) (store.Session, error)
	TouchSession(ctx context.Context, tokenHash []byte, now time.Time) error
	DeleteSession(ctx context.Context, tokenHash []byte) error
	PruneSessions(ctx context.Context, now time.Time, idle time.Duration) (int64, error)
}

var _ SessionStore = (*store.Store)(nil)

// Options configure Sessions; zero fields take defaults.
type Options struct {
	Hasher      HasherOptions
	Limits      LimitOptions
	IdleTimeout time.Duration // default DefaultIdleTimeout
	MaxAge      time.Duration // default DefaultMaxAge
	// BehindTLS marks cookies Secure even on requests that arrived over
	// plain HTTP: the panel sits behind a proxy that terminates TLS.
	// Requests that arrive over TLS always get Secure cookies.
	BehindTLS bool
	Now       func() time.Time // default time.Now; tests move the clock
	Logger    *slog.Logger
}

// Sessions logs operators in and out and finds the operator of a request
// (it implements panel/server's Authenticator). Only the sha256 of a
// session token is stored, so a read of the database logs nobody in.
// Safe for concurrent use.
type Sessions struct {
	store   SessionStore // immutable after New
	hasher  *Hasher      // immutable after New
	limiter *Limiter     // immutable after New
	opts    Options      // immutable after New
	log     *slog.Logger // immutable after New

	mu    sync.Mutex
	onEnd []func(sessionID string) // guarded by mu; told of every session Logout ends
}

// New returns Sessions over the store.
func New(st SessionStore, o Options) *Sessions {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Sessions{store: st, hasher: NewHasher(o.Hasher), limiter: NewLimiter(o.Limits), opts: o,
		log: o.Logger.With("component", "auth")}
}

// Hasher is the bounded password hasher (for new passwords: user add,
// the admin pages).
func (s *Sessions) Hasher() *Hasher { return s.hasher }

// Login errors. Their messages are meant for the login page.
var (
	ErrBadCredentials = errors.New("wrong username or password")
	ErrDisabled       = errors.New("this account is disabled; ask an admin to enable it")
)

// RateLimitedError is a login refused by the failed-login rate limit.
type RateLimitedError struct {
	Wait time.Duration
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("too many failed logins, try again in %d s", int((e.Wait+time.Second-1)/time.Second))
}

// Login is a logged-in session: the token for the cookie and its operator.
type Login struct {
	Token     string
	Expires   time.Time
	Principal *Principal
}

// LoginBlocked says whether a login for name would wait or be refused
// by the rate limit now (Limiter.Blocked on its username key).
func (s *Sessions) LoginBlocked(name string) bool {
	return s.limiter.Blocked(s.opts.Now(), UserKey(name))
}

// Login checks a name and password and opens a session. It fails with
// ErrBadCredentials, *RateLimitedError, ErrDisabled, ErrBusy, or a storage
// error. remoteAddr is the client's address (host, no port) for the rate
// limit.
func (s *Sessions) Login(ctx context.Context, name, password, remoteAddr string) (Login, error) {
	a, err := s.reserve(ctx, UserKey(name), AddrKey(remoteAddr))
	if err != nil {
		return Login{}, err
	}
	u, ok, err := s.check(ctx, name, password)
	if err != nil {
		a.Cancel()
		return Login{}, err
	}
	if !ok {
		if wait := a.Fail(s.opts.Now()); wait > 0 {
			return Login{}, &RateLimitedError{Wait: wait}
		}
		return Login{}, ErrBadCredentials
	}
	if u.Disabled {
		a.Cancel()
		return Login{}, ErrDisabled
	}
	a.Succeed(UserKey(name))
	now := s.opts.Now()
	token, hash, err := newToken()
	if err != nil {
		return Login{}, err
	}
	expires := now.Add(s.opts.MaxAge)
	if err := s.store.CreateSession(ctx, hash, u.ID, now, expires); err != nil {
		return Login{}, err
	}
	return Login{Token: token, Expires: expires, Principal: principalOf(u)}, nil
}

// Refuse counts a login attempt that was refused before any password was
// checked (a form that is not text) as a failed login of name from
// remoteAddr. It returns *RateLimitedError when the keys are (now) locked
// out, ErrBusy or the context's error, else nil.
func (s *Sessions) Refuse(ctx context.Context, name, remoteAddr string) error {
	a, err := s.reserve(ctx, UserKey(name), AddrKey(remoteAddr))
	if err != nil {
		return err
	}
	if wait := a.Fail(s.opts.Now()); wait > 0 {
		return &RateLimitedError{Wait: wait}
	}
	return nil
}

// reserve takes a login attempt on the keys (see Limiter.Reserve),
// waiting while the keys' attempts in flight may yet lock them, at most
// the hasher's slot wait (then ErrBusy, as for a hashing slot).
func (s *Sessions) reserve(ctx context.Context, keys ...string) (*Attempt, error) {
	wait := s.opts.Hasher.SlotWait
	if wait <= 0 {
		wait = DefaultHashSlotWait
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		a, locked, full := s.limiter.Reserve(s.opts.Now(), keys...)
		switch {
		case a != nil:
			return a, nil
		case locked > 0:
			return nil, &RateLimitedError{Wait: locked}
		}
		select {
		case <-full:
		case <-timer.C:
			return nil, ErrBusy
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// check verifies a name and password; an unknown name costs one decoy
// verification, so timing does not tell which names exist.
func (s *Sessions) check(ctx context.Context, name, password string) (store.User, bool, error) {
	if len(password) > MaxPasswordLen {
		return store.User{}, false, nil
	}
	u, err := s.store.UserByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return store.User{}, false, s.hasher.VerifyDecoy(ctx, password)
	}
	if err != nil {
		return store.User{}, false, err
	}
	ok, err := s.hasher.Verify(ctx, password, u.PasswordHash)
	if errors.Is(err, ErrBadHash) {
		s.log.Error("stored password hash is unreadable", "user", name, "err", err)
		return u, false, nil
	}
	return u, ok, err
}

// Principal returns the operator of a request, or nil when nobody is
// logged in: no cookie, an unknown, expired or idle session, a disabled
// user. It is panel/server's Authenticator.
func (s *Sessions) Principal(r *http.Request) (*Principal, error) {
	hash, ok := cookieHash(r)
	if !ok {
		return nil, nil
	}
	se, err := s.store.SessionByHash(r.Context(), hash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	now := s.opts.Now()
	if !now.Before(se.ExpiresAt) || now.Sub(se.LastSeen) >= s.opts.IdleTimeout {
		if err := s.store.DeleteSession(r.Context(), hash); err != nil {
			s.log.Warn("delete expired session", "err", err)
		}
		return nil, nil
	}
	if se.User.Disabled {
		return nil, nil
	}
	if !Role(se.User.Role).Valid() {
		return nil, fmt.Errorf("user %q has an unknown role %q", se.User.Name, se.User.Role)
	}
	if now.Sub(se.LastSeen) >= touchEvery {
		if err := s.store.TouchSession(r.Context(), hash, now); err != nil {
			s.log.Warn("touch session", "err", err)
		}
	}
	return principalOf(se.User), nil
}

// Logout ends the request's session (if any), and tells the OnEnd
// functions its SessionID.
func (s *Sessions) Logout(ctx context.Context, r *http.Request) error {
	hash, ok := cookieHash(r)
	if !ok {
		return nil
	}
	if err := s.store.DeleteSession(ctx, hash); err != nil {
		return err
	}
	s.mu.Lock()
	fns := slices.Clone(s.onEnd)
	s.mu.Unlock()
	for _, fn := range fns {
		fn(string(hash))
	}
	return nil
}

// OnEnd adds fn, called with the SessionID of each session Logout ends
// (after it ended, on the logout's goroutine: fn must be quick). Sessions
// that end otherwise (expiry, a disabled user, a revoked grant, a logout
// on another replica) are found by asking Principal again.
func (s *Sessions) OnEnd(fn func(sessionID string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onEnd = append(s.onEnd, fn)
}

// SessionID identifies the request's session (the hash of its token, not
// the token), "" when it carries none.
func SessionID(r *http.Request) string {
	hash, ok := cookieHash(r)
	if !ok {
		return ""
	}
	return string(hash)
}

// Prune deletes expired and idle sessions.
func (s *Sessions) Prune(ctx context.Context) (int64, error) {
	return s.store.PruneSessions(ctx, s.opts.Now(), s.opts.IdleTimeout)
}

// Run prunes expired sessions every interval until ctx ends.
func (s *Sessions) Run(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := s.Prune(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("prune sessions", "err", err)
		} else if n > 0 {
			s.log.Debug("pruned sessions", "n", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// SetCookie sets the session cookie of a new login on the response:
// HttpOnly, SameSite=Lax, Secure over TLS or when BehindTLS.
func (s *Sessions) SetCookie(w http.ResponseWriter, r *http.Request, l Login) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: l.Token, Path: "/", Expires: l.Expires,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secure(r)})
}

// ClearCookie removes the session cookie from the browser.
func (s *Sessions) ClearCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secure(r)})
}

func (s *Sessions) secure(r *http.Request) bool { return r.TLS != nil || s.opts.BehindTLS }

func principalOf(u store.User) *Principal {
	lic := slices.Clone(u.Licenses)
	slices.Sort(lic) // Go's byte order: CanView binary-searches it
	return &Principal{UserID: u.ID, Name: u.Name, Role: Role(u.Role), Licenses: lic}
}

var tokenEnc = base64.RawURLEncoding

func newToken() (token string, hash []byte, err error) {
	b := make([]byte, tokenLen)
	if _, err := rand.Read(b); err != nil {
		return "", nil, fmt.Errorf("session token: %w", err)
	}
	h := sha256.Sum256(b)
	return tokenEnc.EncodeToString(b), h[:], nil
}

// cookieHash is the sha256 of the request's session token, if it carries a
// well-formed one.
func cookieHash(r *http.Request) ([]byte, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return nil, false
	}
	b, err := tokenEnc.DecodeString(c.Value)
	if err != nil || len(b) != tokenLen {
		return nil, false
	}
	h := sha256.Sum256(b)
	return h[:], true
}

// RemoteHost is the host part of a request's remote address.
func RemoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
