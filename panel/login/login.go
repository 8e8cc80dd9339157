// Package login is the panel's front door and its plumbing endpoints: the
// login page and form (GET/POST /login), POST /logout, Prometheus metrics
// (GET /metrics) and the health check (GET /healthz). Only panel packages
// import it.
package login

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// AuditAction is the audit log's action for login attempts.
const AuditAction = "login"

// maxFormBytes bounds a login form's body.
const maxFormBytes = 16 << 10

// Deps are what the feature needs.
type Deps struct {
	Sessions *auth.Sessions
	Audit    server.Auditor      // login rows (ok, failed, rate-limited)
	Gatherer prometheus.Gatherer // what /metrics serves; nil: /metrics is not served
	// Registry gets the login counters (corrosion_panel_logins_total);
	// nil: not registered.
	Registry prometheus.Registerer
	Metrics  MetricsAccess
	// Health reports whether the panel can serve (its database answers);
	// nil: always healthy.
	Health func(ctx context.Context) error
	Logger *slog.Logger
}

// MetricsAccess is who may read /metrics. An admin's session always may;
// a scraper sends `Authorization: Bearer <Token>`. Public opens it to
// anyone who can reach the panel (the series hold counts and latencies by
// route pattern, no names, licenses or secrets; features add their own).
type MetricsAccess struct {
	Token  string
	Public bool
}

// Feature serves the login page, logout, metrics and health.
type Feature struct {
	d      Deps                   // immutable after New
	log    *slog.Logger           // immutable after New
	logins *prometheus.CounterVec // immutable after New; by result: ok, wrong, rate_limited, disabled, busy, error
}

// New returns the feature.
func New(d Deps) *Feature {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	f := &Feature{d: d, log: d.Logger.With("component", "login"),
		logins: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corrosion_panel_logins_total",
			Help: "Login attempts by result (ok, wrong, rate_limited, disabled, busy, error).",
		}, []string{"result"})}
	for _, r := range []string{"ok", "wrong", "rate_limited", "disabled", "busy", "error"} {
		f.logins.WithLabelValues(r) // every series exists from the start
	}
	if d.Registry != nil {
		h := d.Sessions.Hasher()
		d.Registry.MustRegister(f.logins,
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "corrosion_panel_password_hashes_in_flight",
				Help: "argon2id hashes running now (bounded; each holds its memory cost).",
			}, func() float64 { return float64(h.InFlight()) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "corrosion_panel_password_hash_busy_total",
				Help: "Logins refused because every hashing slot stayed taken (a login storm).",
			}, func() float64 { return float64(h.Busy()) }))
	}
	return f
}

// Routes implements httpx.Feature.
func (f *Feature) Routes() []httpx.Route {
	rs := []httpx.Route{
		{Pattern: "GET /login", Need: httpx.Public, Handler: f.page},
		{Pattern: "POST /login", Need: httpx.Public, MaxForm: maxFormBytes, OwnBadInput: true, Handler: f.login},
		{Pattern: "POST /logout", Need: httpx.Public, Audit: "logout", Handler: f.logout},
		{Pattern: "GET /healthz", Need: httpx.Public, Handler: f.healthz},
	}
	if f.d.Gatherer != nil {
		rs = append(rs, httpx.Route{Pattern: "GET /metrics", Need: httpx.Public, Handler: f.metrics})
	}
	return rs
}

// page shows the login form; a logged-in operator goes straight on.
func (f *Feature) page(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	next := LocalPath(r.URL.Query().Get("next"))
	if p != nil {
		http.Redirect(w, r, landing(next), http.StatusSeeOther)
		return nil
	}
	pg := server.PageFor(nil, "Sign in", "")
	if r.URL.Query().Has("loggedout") {
		pg.Flash = "You are logged out."
	}
	return server.Render(w, r, http.StatusOK, ui.LoginPage(pg, ui.LoginForm{Next: next}))
}

// login checks the form, sets the session cookie and goes on to next; a
// failure shows the form again with the reason in words.
func (f *Feature) login(w http.ResponseWriter, r *http.Request, _ *auth.Principal) error {
	form := ui.LoginForm{Name: strings.TrimSpace(r.PostForm.Get("name")), Next: LocalPath(r.PostForm.Get("next"))}
	if err := server.BadInput(r); err != nil {
		return f.badInput(w, r, form, err)
	}
	password := r.PostForm.Get("password")
	if form.Name == "" || password == "" {
		form.Error = "Enter your username and password."
		return f.again(w, r, http.StatusBadRequest, form)
	}
	l, err := f.d.Sessions.Login(r.Context(), form.Name, password, auth.RemoteHost(r))
	if err != nil {
		return f.failed(w, r, form, err)
	}
	f.logins.WithLabelValues("ok").Inc()
	f.audit(r, l.Principal, form.Name, store.AuditOK, "")
	f.d.Sessions.SetCookie(w, r, l)
	http.Redirect(w, r, landing(form.Next), http.StatusSeeOther)
	return nil
}

// failed renders a failed login and writes its audit row.
func (f *Feature) failed(w http.ResponseWriter, r *http.Request, form ui.LoginForm, err error) error {
	var limited *auth.RateLimitedError
	status, result, metric := http.StatusUnauthorized, store.AuditDenied, "wrong"
	switch {
	case errors.Is(err, auth.ErrBadCredentials):
		form.Error = "Wrong username or password."
	case errors.As(err, &limited):
		secs := strconv.Itoa(int((limited.Wait + time.Second - 1) / time.Second))
		status, metric = http.StatusTooManyRequests, "rate_limited"
		w.Header().Set("Retry-After", secs)
		form.Error = "Too many failed logins, try again in " + secs + " s."
	case errors.Is(err, auth.ErrDisabled):
		status, metric = http.StatusForbidden, "disabled"
		form.Error = "This account is disabled. Ask an admin to enable it."
	case errors.Is(err, auth.ErrBusy):
		status, result, metric = http.StatusServiceUnavailable, store.AuditError, "busy"
		form.Error = "The panel is busy checking other logins. Try again in a moment."
	default:
		f.log.Error("login failed", "user", form.Name, "err", err)
		status, result, metric = http.StatusInternalServerError, store.AuditError, "error"
		form.Error = "The panel cannot check logins right now; the error has been logged."
	}
	f.logins.WithLabelValues(metric).Inc()
	f.audit(r, nil, form.Name, result, err.Error())
	return f.again(w, r, status, form)
}

// badInput answers a login form that is not text (or cannot be read) as
// a failed login: 400 with the reason, counted by the rate limit and
// audited, the name shown and stored as printable text.
func (f *Feature) badInput(w http.ResponseWriter, r *http.Request, form ui.LoginForm, bad error) error {
	raw := form.Name
	form.Name = httpx.Printable(httpx.Truncate(raw, 256))
	if err := f.d.Sessions.Refuse(r.Context(), raw, auth.RemoteHost(r)); err != nil {
		return f.failed(w, r, form, err)
	}
	var e *httpx.Error
	if !errors.As(bad, &e) {
		e = httpx.Wrap(http.StatusBadRequest, "the login form could not be read", bad)
	}
	f.logins.WithLabelValues("wrong").Inc()
	f.audit(r, nil, form.Name, store.AuditDenied, e.Message)
	form.Error = "The login was refused: " + e.Message + "."
	return f.again(w, r, e.Status, form)
}

func (f *Feature) again(w http.ResponseWriter, r *http.Request, status int, form ui.LoginForm) error {
	return server.Render(w, r, status, ui.LoginPage(server.PageFor(nil, "Sign in", ""), form))
}

// audit writes a login's row; a failed write is logged (the login's
// outcome stands either way).
func (f *Feature) audit(r *http.Request, p *auth.Principal, name string, res store.AuditResult, detail string) {
	e := store.AuditEntry{At: time.Now(), RemoteAddr: auth.RemoteHost(r), Action: AuditAction,
		Target: name, Result: res, Detail: detail}
	if p != nil {
		e.UserID, e.UserName = p.UserID, p.Name
	}
	if err := f.d.Audit.RecordAudit(context.WithoutCancel(r.Context()), e); err != nil {
		f.log.Error("audit write failed", "action", AuditAction, "err", err)
	}
}

// logout ends the session and shows the login page.
func (f *Feature) logout(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	if err := f.d.Sessions.Logout(r.Context(), r); err != nil {
		return httpx.Wrap(http.StatusInternalServerError, "the panel could not end your session; try again", err)
	}
	f.d.Sessions.ClearCookie(w, r)
	if server.IsHTMX(r) {
		w.Header().Set("HX-Redirect", "/login?loggedout=1")
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	http.Redirect(w, r, "/login?loggedout=1", http.StatusSeeOther)
	return nil
}

// LocalPath returns next when it is a path on this panel ("/hosts/x?y"),
// else "": a login must never redirect to another site.
func LocalPath(next string) string {
	if next == "" || len(next) > 2048 || next[0] != '/' || strings.HasPrefix(next, "//") ||
		strings.ContainsAny(next, "\\\x00\r\n\t") {
		return ""
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") ||
		strings.HasPrefix(u.Path, "//") || strings.HasPrefix(u.Path, "/login") {
		return ""
	}
	return u.RequestURI()
}

// landing is where a login goes on to: next, else the Servers page (a
// newcomer lands on their servers; the fleet of hosts is one click away).
// "/" is what the server's login redirect sends for the bare panel
// address, so it lands on the servers too.
func landing(next string) string {
	if next == "" || next == "/" {
		return ui.ServersURL
	}
	return next
}
