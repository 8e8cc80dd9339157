package ether

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// collector exposes the node's state to Prometheus, read at scrape time.
type collector struct {
	n     *Node
	descs map[string]*prometheus.Desc
}

var metricHelp = []struct{ name, help string }{
	{"ether_sessions", "Sessions (online players) on this node."},
	{"ether_world_link_up", "1 when a world is connected to the link."},
	{"ether_frames_in_total", "Frames read from the world."},
	{"ether_frames_out_total", "Frames queued to the world."},
	{"ether_frames_dropped_total", "Frames to the world dropped: no world connected, or it was not reading."},
	{"ether_frames_malformed_total", "Bad frames from the world (empty, unknown opcode, wrong length, cut short by the end of the connection; a refused first frame too), dropped."},
	{"ether_pms_total", "Private messages sent from this node's world, by result."},
	{"ether_login_checks_total", "Login checks answered, by result."},
	{"ether_db_up", "1 when the last database contact succeeded."},
	{"ether_db_rtt_seconds", "Round trip of the last database ping."},
	{"ether_db_pending_writes", "Writes queued for the database (grows during an outage)."},
	{"ether_nats_connected", "1 when the NATS connection is up."},
	{"ether_peers", "Other ether nodes seen alive."},
	{"ether_login_lock_up", "1 when the cluster-wide login lock works; 0 while login checks cannot take it (see login_lock in /health for why)."},
	{"ether_login_lock_replicas", "Replicas of the login lock's JetStream bucket (0 until it exists)."},
	{"ether_node_info", "Constant 1, labelled with this node's id and cluster."},
}

func newCollector(n *Node) *collector {
	c := &collector{n: n, descs: map[string]*prometheus.Desc{}}
	for _, m := range metricHelp {
		var labels []string
		switch m.name {
		case "ether_pms_total", "ether_login_checks_total":
			labels = []string{"result"}
		case "ether_node_info":
			labels = []string{"node", "cluster"}
		}
		c.descs[m.name] = prometheus.NewDesc(m.name, m.help, labels, nil)
	}
	return c
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	n := c.n
	ls, ss := n.link.Stats(), n.sessions.Stats()
	gauge := func(name string, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(c.descs[name], prometheus.GaugeValue, v, labels...)
	}
	counter := func(name string, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(c.descs[name], prometheus.CounterValue, float64(v), labels...)
	}
	gauge("ether_sessions", float64(ss.Sessions))
	gauge("ether_world_link_up", b2f(n.link.Up()))
	counter("ether_frames_in_total", ls.FramesIn)
	counter("ether_frames_out_total", ls.FramesOut)
	counter("ether_frames_dropped_total", ls.Dropped)
	counter("ether_frames_malformed_total", ls.Malformed)
	counter("ether_pms_total", ss.PMDelivered, "delivered")
	for reason, v := range ss.PMDropped {
		counter("ether_pms_total", v, reason)
	}
	counter("ether_login_checks_total", ss.LoginAllowed, "allowed")
	counter("ether_login_checks_total", ss.LoginDenied, "denied")
	gauge("ether_db_up", b2f(n.store.Up()))
	gauge("ether_db_rtt_seconds", n.store.RTT().Seconds())
	gauge("ether_db_pending_writes", float64(n.store.Pending()))
	gauge("ether_nats_connected", b2f(n.member.Connected()))
	gauge("ether_peers", float64(len(n.member.Peers())))
	lock := n.member.LockState()
	gauge("ether_login_lock_up", b2f(lock.Available))
	gauge("ether_login_lock_replicas", float64(lock.Replicas))
	gauge("ether_node_info", 1, strconv.Itoa(int(n.cfg.NodeID)), n.cfg.ClusterName)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// httpHandler serves /metrics (Prometheus) and /health (the snapshot).
func (n *Node) httpHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newCollector(n), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(n.Health())
	})
	return mux
}
