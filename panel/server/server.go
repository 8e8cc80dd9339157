// Package server is the panel's HTTP server: it mounts every feature's route
// table behind one middleware chain — security headers, cross-origin
// (CSRF) protection, the session's principal, the route's Need (including
// the {license} grant), the audit row, metrics — and renders every handler
// error on one path. Features hold no auth checks of their own beyond what
// their route's Need says. Only panel packages import it.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// Authenticator finds the logged-in operator of a request (panel/auth's
// sessions implement it).
type Authenticator interface {
	// Principal returns the request's operator, or nil with no error when
	// nobody is logged in (no cookie, an unknown or expired session, a
	// disabled user).
	Principal(r *http.Request) (*auth.Principal, error)
}

// Auditor writes audit rows (panel/store implements it).
type Auditor interface {
	RecordAudit(ctx context.Context, e store.AuditEntry) error
}

// Config is the server's own settings.
type Config struct {
	Listen string // host:port
	// TrustedOrigins are extra origins (scheme://host[:port]) allowed to
	// send state-changing requests, e.g. a load balancer's public name.
	// Same-origin requests are always allowed.
	TrustedOrigins []string
	// TrustedProxies are the load balancers (addresses or CIDR prefixes,
	// e.g. "10.0.0.0/8") whose X-Forwarded-For names the client, for the
	// audit log and the failed-login rate limit. Empty: the TCP peer is
	// the client, and X-Forwarded-For is ignored (it is easily forged).
	TrustedProxies []string
	// SessionRecheck is how often a request still running (a live
	// stream) asks again who its operator is, ending when they logged
	// out, their session expired or was revoked, or their role or grants
	// changed; 0: DefaultSessionRecheck. A logout on this replica ends
	// its session's streams at once.
	SessionRecheck time.Duration
}

// Deps are the parts the server wires together.
type Deps struct {
	Auth     Authenticator
	Audit    Auditor
	Features []httpx.Feature
	Registry prometheus.Registerer // nil: metrics are not registered
	Logger   *slog.Logger
}

// Server serves the panel.
type Server struct {
	cfg     Config       // immutable after New
	deps    Deps         // immutable after New
	log     *slog.Logger // immutable after New
	handler http.Handler // the whole chain; immutable after New
	metrics *metrics     // immutable after New
	watches *watches     // immutable after New
	denials *denials     // immutable after New; the budget of DeniedAction rows
}

// New builds the server: every feature's routes on one mux, behind the
// middleware chain. It fails on a route pattern that does not parse or is
// registered twice.
func New(cfg Config, deps Deps) (s *Server, err error) {
	if deps.Auth == nil || deps.Audit == nil {
		return nil, errors.New("server: Auth and Audit are required")
	}
	if deps.Logger == nil {
		deps.Logger = slog.Default()
	}
	s = &Server{cfg: cfg, deps: deps, log: deps.Logger.With("component", "server"), metrics: newMetrics(deps.Registry),
		watches: newWatches(deps.Auth, cfg.SessionRecheck), denials: newDenials()}
	mux := http.NewServeMux()
	defer func() {
		if r := recover(); r != nil { // ServeMux panics on a bad or duplicate pattern
			s, err = nil, fmt.Errorf("server: %v", r)
		}
	}()
	mux.Handle("GET "+ui.StaticPrefix, ui.Static())
	mux.Handle("/", s.route(httpx.Route{Pattern: "/", Need: httpx.Public, Handler: notFound}))
	for _, f := range deps.Features {
		for _, rt := range f.Routes() {
			mux.Handle(rt.Pattern, s.route(rt))
		}
	}
	cop := http.NewCrossOriginProtection()
	for _, o := range cfg.TrustedOrigins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("server: trusted origin %q: %w", o, err)
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.metrics.csrfDenied.Inc()
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
	}))
	ps, err := parseProxies(cfg.TrustedProxies)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.handler = compress(securityHeaders(ps.realIP(cop.Handler(mux))))
	return s, nil
}

// Handler is the whole panel as an http.Handler (for tests and Run).
func (s *Server) Handler() http.Handler { return s.handler }

// Run serves on cfg.Listen until ctx ends, then shuts down gracefully
// (open live streams are ended by their own request contexts).
func (s *Server) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", s.cfg.Listen, err)
	}
	return s.Serve(ctx, ln)
}

// Serve is Run on a listener the caller opened.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute, // keep-alive connections; live streams are not idle
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	return nil
}

// securityHeaders sets the headers every response carries: a CSP with no
// inline script and no framing, and the usual hardening.
func securityHeaders(next http.Handler) http.Handler {
	const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
		// Pages show an operator's fleet: no shared cache may keep them.
		// Static assets replace this with their own (immutable) policy.
		h.Set("Cache-Control", "no-store")
		if r.TLS != nil {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		next.ServeHTTP(w, r)
	})
}

// notFound is every path no feature serves: a page in words, with the
// navigation when someone is logged in.
func notFound(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	return httpx.Errorf(http.StatusNotFound, "there is no page at %s", r.URL.Path)
}

// PageFor is the frame data of a page for a principal.
func PageFor(p *auth.Principal, title string, nav ui.Nav) ui.Page {
	pg := ui.Page{Title: title, Nav: nav}
	if p != nil {
		pg.User, pg.Role, pg.IsAdmin = p.Name, string(p.Role), p.IsAdmin()
	}
	return pg
}

// Render writes a templ component as an HTML response.
func Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	return c.Render(r.Context(), w)
}

func remoteAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func loginRedirect(w http.ResponseWriter, r *http.Request) {
	next := r.URL.RequestURI()
	if r.Method != http.MethodGet || strings.HasPrefix(next, "/login") {
		next = "/"
	}
	target := "/login?next=" + urlQueryEscape(next)
	if IsHTMX(r) {
		w.Header().Set("HX-Redirect", target)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}
