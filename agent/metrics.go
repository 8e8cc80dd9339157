package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/scrape"
)

// The agent's Prometheus metrics (docs/agent.md, "Metrics"). As in ether,
// a collector reads the parts' state at scrape time (NATS, supervisors);
// only what leaves no state behind — requests served, heartbeats sent — is
// counted where it happens.

// requestKind is the kind label of the request metrics: which part served
// the request.
type requestKind string

const (
	kindRCON  requestKind = "rcon"  // an instance's rcon func
	kindFiles requestKind = "files" // the file manager's fm_* funcs
)

// resultSuccess is the result label of a request that succeeded; a failed
// one is labelled with the code of its error reply.
const resultSuccess = "success"

// heartbeatResult is the result label of corrosion_agent_heartbeats_total.
type heartbeatResult string

const (
	heartbeatSent   heartbeatResult = "sent"   // handed to a connected NATS client
	heartbeatFailed heartbeatResult = "failed" // NATS was not connected when it was due
)

// requestBuckets (seconds) span a quick file stat or RCON command (~1 ms)
// to an archive or a slow game server (rcon gives up after 10 s).
var requestBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// agentMetrics holds the registry /metrics serves and the metrics recorded
// where things happen. Every field is immutable after newAgentMetrics; the
// vectors are safe for concurrent use.
type agentMetrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec   // kind, instance, func, result
	latency    *prometheus.HistogramVec // kind, func
	heartbeats *prometheus.CounterVec   // result
}

func newAgentMetrics(a *Agent) *agentMetrics {
	m := &agentMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corrosion_agent_requests_total",
			Help: "RCON and file manager requests served, by kind, instance, func and result (success or the error code).",
		}, []string{"kind", "instance", "func", "result"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "corrosion_agent_request_duration_seconds",
			Help:    "Time to serve an RCON or file manager request, by kind and func.",
			Buckets: requestBuckets,
		}, []string{"kind", "func"}),
		heartbeats: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corrosion_agent_heartbeats_total",
			Help: "Heartbeats due, by result: sent (NATS connected) or failed (NATS not connected).",
		}, []string{"result"}),
	}
	for _, r := range []heartbeatResult{heartbeatSent, heartbeatFailed} {
		m.heartbeats.WithLabelValues(string(r))
	}
	m.reg = scrape.Registry(m.requests, m.latency, m.heartbeats, newAgentCollector(a))
	return m
}

// observe records one request of kind to instance's func fn.
func (m *agentMetrics) observe(kind requestKind, instance, fn string, took time.Duration, err error) {
	m.requests.WithLabelValues(string(kind), instance, fn, resultOf(err)).Inc()
	m.latency.WithLabelValues(string(kind), fn).Observe(took.Seconds())
}

// timed wraps h so that each request it serves is recorded. fn must be one
// of the table's func names (never a name taken from a request), which
// keeps the label's values few.
func (m *agentMetrics) timed(kind requestKind, instance, fn string, h handler) handler {
	return func(ctx context.Context, req wire.Request) (any, error) {
		start := time.Now()
		out, err := h(ctx, req)
		m.observe(kind, instance, fn, time.Since(start), err)
		return out, err
	}
}

// heartbeat counts one heartbeat.
func (m *agentMetrics) heartbeat(r heartbeatResult) {
	m.heartbeats.WithLabelValues(string(r)).Inc()
}

// resultOf is a request's result label: success, or the code its error
// reply carries. It reads the code from the reply as respond encodes it,
// so the label and the reply never disagree (the error path only).
func resultOf(err error) string {
	if err == nil {
		return resultSuccess
	}
	var rep wire.ErrorReply
	if json.Unmarshal(wire.EncodeError(toWire(err)), &rep) != nil || rep.Code == "" {
		return wire.CodeInternal
	}
	return rep.Code
}

// countingSink is an instance's supervise.Sink and the console of its
// RCON broadcasts: it counts the console lines it hands to the publisher.
type countingSink struct {
	pub   *publisher    // immutable
	lines atomic.Uint64 // console lines published
}

// State implements supervise.Sink.
func (s *countingSink) State(id string, ev wire.StateEvent) { s.pub.State(id, ev) }

// Console implements supervise.Sink.
func (s *countingSink) Console(id string, lines []wire.ConsoleLine) {
	s.lines.Add(uint64(len(lines)))
	s.pub.Console(id, lines)
}

// startMetrics listens on metrics_listen and serves /metrics until the
// returned stop is called; with metrics_listen empty it does nothing. A
// listen failure names the setting.
func (a *Agent) startMetrics() (stop func(), err error) {
	addr := a.cfg.Agent.MetricsListen
	if addr == "" {
		return func() {}, nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(a.metrics.reg, promhttp.HandlerOpts{}))
	l, err := scrape.Listen(addr, mux, a.log)
	if err != nil {
		return nil, fmt.Errorf("agent.metrics_listen: %w", err)
	}
	l.Serve()
	a.log.Info("metrics listening", "addr", l.Addr().String())
	return l.Stop, nil
}
