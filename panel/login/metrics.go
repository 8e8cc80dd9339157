package login

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
)

// metrics serves the Prometheus registry to an admin, a scraper with the
// bearer token, or anyone when MetricsAccess.Public.
func (f *Feature) metrics(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	if !f.d.Metrics.Public && !p.IsAdmin() && !f.bearerOK(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="corrosion-panel metrics"`)
		return httpx.Errorf(http.StatusUnauthorized, "metrics need an admin session or the metrics bearer token")
	}
	promhttp.HandlerFor(f.d.Gatherer, promhttp.HandlerOpts{ErrorLog: nil}).ServeHTTP(w, r)
	return nil
}

func (f *Feature) bearerOK(r *http.Request) bool {
	tok := f.d.Metrics.Token
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return tok != "" && ok && subtle.ConstantTimeCompare([]byte(got), []byte(tok)) == 1
}

// healthTimeout bounds a health check.
const healthTimeout = 2 * time.Second

// healthz answers 200 "ok" while the panel can serve, 503 when its
// database does not answer (a load balancer takes the replica out).
func (f *Feature) healthz(w http.ResponseWriter, r *http.Request, _ *auth.Principal) error {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if f.d.Health != nil {
		ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
		defer cancel()
		if err := f.d.Health(ctx); err != nil {
			f.log.Warn("health check failed", "err", err)
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("unhealthy: the database does not answer\n"))
			return nil
		}
	}
	_, _ = w.Write([]byte("ok\n"))
	return nil
}
