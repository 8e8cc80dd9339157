package ether

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/corrosion/corrosion/internal/scrape"
)

// metricDefs are the metrics collectMetrics reads at scrape time.
var metricDefs = []scrape.Def{
	{Name: "ether_sessions", Help: "Sessions (online players) on this node."},
	{Name: "ether_world_link_up", Help: "1 when a world is connected to the link."},
	{Name: "ether_frames_in_total", Help: "Frames read from the world."},
	{Name: "ether_frames_out_total", Help: "Frames queued to the world."},
	{Name: "ether_frames_dropped_total", Help: "Frames to the world dropped: no world connected, or it was not reading."},
	{Name: "ether_frames_malformed_total", Help: "Bad frames from the world (empty, unknown opcode, wrong length, cut short by the end of the connection; a refused first frame too), dropped."},
	{Name: "ether_pms_total", Help: "Private messages sent from this node's world, by result.", Labels: []string{"result"}},
	{Name: "ether_login_checks_total", Help: "Login checks answered, by result.", Labels: []string{"result"}},
	{Name: "ether_db_up", Help: "1 when the last database contact succeeded."},
	{Name: "ether_db_rtt_seconds", Help: "Round trip of the last database ping."},
	{Name: "ether_db_pending_writes", Help: "Writes queued for the database (grows during an outage)."},
	{Name: "ether_nats_connected", Help: "1 when the NATS connection is up."},
	{Name: "ether_peers", Help: "Other ether nodes seen alive."},
	{Name: "ether_login_lock_up", Help: "1 when the cluster-wide login lock works; 0 while login checks cannot take it (see login_lock in /health for why)."},
	{Name: "ether_login_lock_replicas", Help: "Replicas of the login lock's JetStream bucket (0 until it exists)."},
	{Name: "ether_node_info", Help: "Constant 1, labelled with this node's id and cluster.", Labels: []string{"node", "cluster"}},
}

// collectMetrics emits the values of metricDefs: the node's state, read at
// scrape time.
func (n *Node) collectMetrics(e scrape.Emit) {
	ls, ss := n.link.Stats(), n.sessions.Stats()
	e.Gauge("ether_sessions", float64(ss.Sessions))
	e.Flag("ether_world_link_up", n.link.Up())
	e.Counter("ether_frames_in_total", float64(ls.FramesIn))
	e.Counter("ether_frames_out_total", float64(ls.FramesOut))
	e.Counter("ether_frames_dropped_total", float64(ls.Dropped))
	e.Counter("ether_frames_malformed_total", float64(ls.Malformed))
	e.Counter("ether_pms_total", float64(ss.PMDelivered), "delivered")
	for reason, v := range ss.PMDropped {
		e.Counter("ether_pms_total", float64(v), reason)
	}
	e.Counter("ether_login_checks_total", float64(ss.LoginAllowed), "allowed")
	e.Counter("ether_login_checks_total", float64(ss.LoginDenied), "denied")
	e.Flag("ether_db_up", n.store.Up())
	e.Gauge("ether_db_rtt_seconds", n.store.RTT().Seconds())
	e.Gauge("ether_db_pending_writes", float64(n.store.Pending()))
	e.Flag("ether_nats_connected", n.member.Connected())
	e.Gauge("ether_peers", float64(len(n.member.Peers())))
	lock := n.member.LockState()
	e.Flag("ether_login_lock_up", lock.Available)
	e.Gauge("ether_login_lock_replicas", float64(lock.Replicas))
	e.Gauge("ether_node_info", 1, strconv.Itoa(int(n.cfg.NodeID)), n.cfg.ClusterName)
}

// httpHandler serves /metrics (Prometheus) and /health (the snapshot).
func (n *Node) httpHandler() http.Handler {
	reg := scrape.Registry(scrape.New(metricDefs, n.collectMetrics))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(n.Health())
	})
	return mux
}
