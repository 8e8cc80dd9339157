package server

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/corrosion/corrosion/panel/auth"
)

// SessionNotifier is implemented by an Authenticator that tells the
// server at once when it ends a session (auth.Sessions, on logout), so a
// live stream of that session ends then rather than at the next recheck.
type SessionNotifier interface {
	OnEnd(fn func(sessionID string))
}

// ErrSessionEnded is the cause of a request context the server ended
// because its operator is no longer who the request was allowed for:
// logged out, session expired or revoked, user disabled, role or grants
// changed.
var ErrSessionEnded = errors.New("the session of this request ended or its permissions changed")

// watches are the authenticated requests in flight, each rechecked every
// interval and at once when its session ends on this replica.
type watches struct {
	auth     Authenticator // immutable after newWatches
	interval time.Duration // immutable after newWatches

	mu        sync.Mutex
	bySession map[string]map[*watch]struct{} // guarded by mu; by auth.SessionID
}

// watch is one request whose context ends with its operator's permissions.
// All its fields are set by start, before the watch is registered, and
// never change; the timer is rearmed by check (one run at a time) and
// stopped by stop.
type watch struct {
	w       *watches
	r       *http.Request           // the request, with the watched context
	p       *auth.Principal         // who it was allowed for
	session string                  // auth.SessionID of r
	cancel  context.CancelCauseFunc // ends r's context
	timer   *time.Timer             // runs check every interval
}

// DefaultSessionRecheck is how often the server asks again who the
// operator of a request still running is (Config.SessionRecheck).
const DefaultSessionRecheck = 5 * time.Second

func newWatches(a Authenticator, interval time.Duration) *watches {
	if interval <= 0 {
		interval = DefaultSessionRecheck
	}
	ws := &watches{auth: a, interval: interval, bySession: map[string]map[*watch]struct{}{}}
	if n, ok := a.(SessionNotifier); ok {
		n.OnEnd(ws.ended)
	}
	return ws
}

// start returns r with a context that ends (cause ErrSessionEnded) when p
// may no longer do what it could, and the function that releases the
// watch when the request is done. Requests without a principal are not
// watched.
func (ws *watches) start(r *http.Request, p *auth.Principal) (*http.Request, func()) {
	if p == nil {
		return r, func() {}
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	wt := &watch{w: ws, r: r.WithContext(ctx), p: p, session: auth.SessionID(r), cancel: cancel}
	wt.timer = time.AfterFunc(ws.interval, wt.check)
	ws.mu.Lock()
	set := ws.bySession[wt.session]
	if set == nil {
		set = map[*watch]struct{}{}
		ws.bySession[wt.session] = set
	}
	set[wt] = struct{}{}
	ws.mu.Unlock()
	return wt.r, wt.stop
}

// stop releases the watch (the request is done).
func (wt *watch) stop() {
	wt.timer.Stop()
	wt.cancel(context.Canceled)
	ws := wt.w
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if set := ws.bySession[wt.session]; set != nil {
		delete(set, wt)
		if len(set) == 0 {
			delete(ws.bySession, wt.session)
		}
	}
}

// check asks who the request's operator is now and ends the request when
// they may no longer do what they could; else it rearms the timer. A
// failed lookup (the database is down) keeps the request: the next check
// asks again.
func (wt *watch) check() {
	if wt.r.Context().Err() != nil {
		return
	}
	now, err := wt.w.auth.Principal(wt.r)
	if err == nil && !auth.SamePermissions(now, wt.p) {
		wt.cancel(ErrSessionEnded)
		return
	}
	wt.timer.Reset(wt.w.interval)
}

// ended ends at once every request of a session that just ended, before
// the logout is answered: nothing published after it reaches them.
func (ws *watches) ended(sessionID string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for wt := range ws.bySession[sessionID] {
		wt.cancel(ErrSessionEnded)
	}
}
