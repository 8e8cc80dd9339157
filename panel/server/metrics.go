package server

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the server's own series; features register theirs on the
// same registry.
type metrics struct {
	latency    *prometheus.HistogramVec // by route pattern and status class
	csrfDenied prometheus.Counter
	// deniedUnwritten counts refused reads whose DeniedAction row was not
	// written: their caller was over the per-minute budget.
	deniedUnwritten prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "corrosion_panel_http_request_seconds",
			Help:    "Time to serve a panel request (until the handler returned; live streams count their whole life).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5},
		}, []string{"route", "code"}),
		csrfDenied: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "corrosion_panel_csrf_denied_total",
			Help: "State-changing requests refused as cross-origin.",
		}),
		deniedUnwritten: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "corrosion_panel_audit_denied_unwritten_total",
			Help: "Refused reads not written to the audit log: their operator was over the budget of denied rows a minute (counted on their next row).",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.latency, m.csrfDenied, m.deniedUnwritten)
	}
	return m
}

func (m *metrics) observe(route string, start time.Time, status int) {
	m.latency.WithLabelValues(route, strconv.Itoa(status/100)+"xx").Observe(time.Since(start).Seconds())
}
