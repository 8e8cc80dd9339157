package console

import "github.com/prometheus/client_golang/prometheus"

// registerMetrics exposes the hub's figures: open console streams, the
// consoles subscribed on NATS, and lines dropped for slow browsers.
func registerMetrics(reg prometheus.Registerer, h *Hub) error {
	cs := []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "corrosion_panel_console_streams",
			Help: "Open live console streams (SSE) on this replica."},
			func() float64 { return float64(h.Watchers()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "corrosion_panel_console_subscriptions",
			Help: "Instance consoles this replica is subscribed to on NATS (only while watched)."},
			func() float64 { return float64(h.Subscriptions()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "corrosion_panel_console_dropped_lines_total",
			Help: "Console lines dropped because a browser's stream fell behind (each stream says so)."},
			func() float64 { return float64(h.Dropped()) }),
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
