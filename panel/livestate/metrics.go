package livestate

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the hub's Prometheus metrics. One set per registry: create
// it once and pass it to every hub of the process.
type Metrics struct {
	streams      prometheus.Gauge
	sent         prometheus.Counter
	dropped      prometheus.Counter
	refetches    prometheus.Counter
	queueDropped prometheus.Counter
	malformed    prometheus.Counter
}

type metrics = Metrics

// NewMetrics registers the hub's metrics on reg (nil: unregistered).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		streams: prometheus.NewGauge(prometheus.GaugeOpts{Name: "corrosion_panel_live_streams",
			Help: "Open live state streams (SSE) on this replica."}),
		sent: prometheus.NewCounter(prometheus.CounterOpts{Name: "corrosion_panel_live_fragments_sent_total",
			Help: "Fragments queued to live state streams."}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "corrosion_panel_live_fragments_dropped_total",
			Help: "Fragments dropped because a stream's buffer was full (the stream refetches)."}),
		refetches: prometheus.NewCounter(prometheus.CounterOpts{Name: "corrosion_panel_live_refetches_total",
			Help: "Refetch events sent to live streams after a drop or a reconnect."}),
		queueDropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "corrosion_panel_live_queue_dropped_total",
			Help: "Agent messages dropped because the live state queue was full (every stream refetches)."}),
		malformed: prometheus.NewCounter(prometheus.CounterOpts{Name: "corrosion_panel_live_malformed_total",
			Help: "Messages on the live state subject the hub could not decode as committed events."}),
	}
	if reg != nil {
		reg.MustRegister(m.streams, m.sent, m.dropped, m.refetches, m.queueDropped, m.malformed)
	}
	return m
}

func (m *Metrics) orNop() *Metrics {
	if m == nil {
		return NewMetrics(nil)
	}
	return m
}
