package ingest

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Reasons messages are dropped (the dropped counter's label).
const (
	dropPendingFull = "pending_full" // held beyond MaxPendingHosts / MaxPendingEvents while the database was down
	dropRefused     = "refused"      // the database refused the license's rows
)

type metrics struct {
	messages     *prometheus.CounterVec // by kind
	malformed    *prometheus.CounterVec // by kind
	dropped      *prometheus.CounterVec // by reason
	unknown      prometheus.Counter
	flushErrors  prometheus.Counter
	batchSize    prometheus.Histogram
	flushSeconds prometheus.Histogram
	lag          prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer, held func() int) (*metrics, error) {
	m := &metrics{
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corrosion_panel_ingest_messages_total", Help: "Agent messages ingested, by kind.",
		}, []string{"kind"}),
		malformed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corrosion_panel_ingest_malformed_total", Help: "Agent messages dropped as malformed, by kind.",
		}, []string{"kind"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corrosion_panel_ingest_dropped_total", Help: "Messages or rows ingest could not keep, by reason.",
		}, []string{"reason"}),
		unknown: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "corrosion_panel_ingest_unknown_license_messages_total",
			Help: "Messages from licenses that are not (enabled) panel licenses; counted in panel_unknown_licenses.",
		}),
		flushErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "corrosion_panel_ingest_flush_errors_total", Help: "Flushes that failed and were retried.",
		}),
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "corrosion_panel_ingest_batch_messages", Help: "Messages written per transaction.",
			Buckets: prometheus.ExponentialBuckets(1, 4, 9),
		}),
		flushSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "corrosion_panel_ingest_flush_seconds", Help: "Time to write one batch.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
		}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "corrosion_panel_ingest_lag_seconds", Help: "Commit time minus the message's timestamp (agent clock).",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}),
	}
	if reg == nil {
		return m, nil
	}
	pendingGauge := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "corrosion_panel_ingest_pending", Help: "Rows held for the next write (hosts, beacons, status events).",
	}, func() float64 { return float64(held()) })
	for _, c := range []prometheus.Collector{m.messages, m.malformed, m.dropped, m.unknown, m.flushErrors, m.batchSize, m.flushSeconds, m.lag, pendingGauge} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("ingest: register metrics: %w", err)
		}
	}
	return m, nil
}
