package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

type principalKey struct{}

// PrincipalFrom returns the principal the server attached to a request's
// context (nil on Public routes when nobody is logged in).
func PrincipalFrom(ctx context.Context) *auth.Principal {
	p, _ := ctx.Value(principalKey{}).(*auth.Principal)
	return p
}

// route wraps one route table entry: principal, Need, audit, metrics and
// the one error-rendering path.
func (s *Server) route(rt httpx.Route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		p, err := s.deps.Auth.Principal(r)
		if err != nil {
			s.log.Error("session lookup failed", "err", err)
			http.Error(w, "the panel cannot read sessions right now; try again", http.StatusServiceUnavailable)
			return
		}
		ctx := context.WithValue(r.Context(), principalKey{}, p)
		r = r.WithContext(context.WithValue(ctx, targetKey{}, &targetBox{}))
		if p == nil && rt.Need != httpx.Public {
			s.audit(r, rt, nil, store.AuditDenied, "not logged in")
			loginRedirect(w, r)
			s.metrics.observe(rt.Pattern, start, http.StatusSeeOther)
			return
		}
		if err := checkInput(w, r, rt); err != nil {
			if !rt.OwnBadInput {
				s.audit(r, rt, p, store.AuditDenied, errMessage(err))
				s.fail(w, r, p, err)
				s.metrics.observe(rt.Pattern, start, httpx.StatusOf(err))
				return
			}
			r = withBadInput(r, err)
		}
		if err := allowed(rt.Need, p, r.PathValue("license")); err != nil {
			s.audit(r, rt, p, store.AuditDenied, err.Error())
			s.fail(w, r, p, err)
			s.metrics.observe(rt.Pattern, start, http.StatusForbidden)
			return
		}
		r, unwatch := s.watches.start(r, p)
		defer unwatch()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		err = rt.Handler(rec, r, p)
		switch {
		case err == nil:
			s.audit(r, rt, p, store.AuditOK, "")
		case deniedStatus(httpx.StatusOf(err)):
			s.audit(r, rt, p, store.AuditDenied, errMessage(err))
		default:
			s.audit(r, rt, p, store.AuditError, errMessage(err))
		}
		if err != nil {
			s.fail(rec, r, p, err)
		}
		s.metrics.observe(rt.Pattern, start, rec.status)
	})
}

// deniedStatus reports whether a handler's error status means the caller
// was refused (audited as denied, not as an error).
func deniedStatus(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusTooManyRequests
}

// allowed checks a route's Need for a principal and the {license} of the
// request's path, if any.
func allowed(need httpx.Need, p *auth.Principal, license string) error {
	switch need {
	case httpx.Public:
		return nil
	case httpx.Admin:
		if !p.IsAdmin() {
			return httpx.Errorf(http.StatusForbidden, "only admins can do that")
		}
	case httpx.Act:
		if why := WhyNot(p, license); why != "" {
			return httpx.Errorf(http.StatusForbidden, "%s", why)
		}
	case httpx.View:
		if license != "" && !p.CanView(license) {
			return httpx.Errorf(http.StatusForbidden, "%s", noGrant(license))
		}
	}
	return nil
}

// audit writes the audit row of a request: every request to a route with
// an Audit action, and every refusal of a logged-in operator on any other
// route (as DeniedAction, at most deniedPerMinute a minute per operator).
// An anonymous request to a read is not a refusal of anyone: it is sent
// to the login page, where attempts are audited. A failed write is
// logged: the operator's action has happened either way.
func (s *Server) audit(r *http.Request, rt httpx.Route, p *auth.Principal, res store.AuditResult, detail string) {
	now := time.Now()
	e := store.AuditEntry{
		At: now, RemoteAddr: remoteAddr(r), Action: rt.Audit,
		License: r.PathValue("license"), Instance: r.PathValue("instance"),
		Target: AuditTarget(r), Result: res, Detail: detail,
	}
	if rt.Audit == "" {
		if res != store.AuditDenied || p == nil {
			return
		}
		ok, note := s.denials.take(now, "user:"+strconv.FormatInt(p.UserID, 10))
		if !ok {
			s.metrics.deniedUnwritten.Inc()
			return
		}
		e.Action, e.Target = DeniedAction, r.Method+" "+r.URL.Path
		if note != "" {
			e.Detail += " (" + note + ")"
		}
	}
	if p != nil {
		e.UserID, e.UserName = p.UserID, p.Name
	}
	// A refused request's path may hold what PostgreSQL refuses to store.
	e.License, e.Instance = httpx.Printable(e.License), httpx.Printable(e.Instance)
	e.Target, e.Detail = httpx.Printable(e.Target), httpx.Printable(e.Detail)
	if err := s.deps.Audit.RecordAudit(context.WithoutCancel(r.Context()), e); err != nil {
		s.log.Error("audit write failed", "action", e.Action, "err", err)
	}
}

type targetKey struct{}

type targetBox struct{ v string }

// SetAuditTarget names what a request acted on (a file path, a user name,
// "stop"), for its audit row. Handlers call it as soon as they know.
func SetAuditTarget(r *http.Request, target string) {
	if b, ok := r.Context().Value(targetKey{}).(*targetBox); ok {
		b.v = target
	}
}

// AuditTarget is what SetAuditTarget recorded.
func AuditTarget(r *http.Request) string {
	if b, ok := r.Context().Value(targetKey{}).(*targetBox); ok {
		return b.v
	}
	return ""
}

// fail renders a handler error: words for the operator, the cause logged.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, p *auth.Principal, err error) {
	status := httpx.StatusOf(err)
	msg := errMessage(err)
	switch {
	case status == http.StatusInternalServerError:
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	case status > 500:
		// A dependency's state (an agent not connected, a timeout), told to
		// the operator in words: not the panel's own failure.
		s.log.Info("request not served", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
	}
	if IsHTMX(r) || r.Header.Get("Accept") == "text/event-stream" || r.Method != http.MethodGet {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(msg))
		return
	}
	_ = Render(w, r, status, ui.ErrorPage(PageFor(p, "Error", ""), status, msg))
}

func errMessage(err error) string {
	var e *httpx.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "something went wrong on the panel; it has been logged"
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.wrote = true
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush for live streams.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func urlQueryEscape(s string) string { return url.QueryEscape(s) }
