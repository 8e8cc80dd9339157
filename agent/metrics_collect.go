package agent

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corrosion/corrosion/agent/wire"
)

// States of corrosion_agent_instance_state, one series each: a state set
// (node exporter's systemd_unit_state style), 1 for the current state.
var (
	managedStates   = []wire.State{wire.StateStopped, wire.StateStarting, wire.StateRunning, wire.StateStopping, wire.StateCrashed}
	unmanagedStates = []wire.State{wire.StateConfigured, wire.StateMissingRoot}
)

// agentMetricDefs are the metrics agentCollector reads at scrape time.
var agentMetricDefs = []struct {
	name, help string
	labels     []string
}{
	{"corrosion_agent_build_info", "Constant 1, labelled with the agent's version and commit.", []string{"version", "commit"}},
	{"corrosion_agent_nats_connected", "1 while the NATS connection is up.", nil},
	{"corrosion_agent_nats_reconnects_total", "Connections made while reconnecting to NATS (nats.go's count; see docs/agent.md).", nil},
	{"corrosion_agent_instance_state", "1 for the instance's current state, 0 for its other states.", []string{"instance", "state"}},
	{"corrosion_agent_instance_uptime_seconds", "Seconds the managed instance's process has run (0 unless running or stopping).", []string{"instance"}},
	{"corrosion_agent_instance_restarts_total", "Restarts of the managed instance after a crash (the restart policy).", []string{"instance"}},
	{"corrosion_agent_instance_crash_loop_stops_total", "Times the crash-loop limit stopped restarting the managed instance.", []string{"instance"}},
	{"corrosion_agent_instance_console_lines_total", "Console lines published for the instance (output, agent notices, RCON broadcasts).", []string{"instance"}},
	{"corrosion_agent_instance_console_dropped_lines_total", "Console lines of the managed instance the rate limit dropped.", []string{"instance"}},
	{"corrosion_agent_instance_console_skipped_bytes_total", "Console output of the managed instance passed over unread while the rate limit had no room.", []string{"instance"}},
}

// agentCollector exposes the agent's state to Prometheus, read at scrape
// time.
type agentCollector struct {
	a     *Agent                      // immutable
	descs map[string]*prometheus.Desc // immutable
}

func newAgentCollector(a *Agent) *agentCollector {
	c := &agentCollector{a: a, descs: map[string]*prometheus.Desc{}}
	for _, m := range agentMetricDefs {
		c.descs[m.name] = prometheus.NewDesc(m.name, m.help, m.labels, nil)
	}
	return c
}

// Describe implements prometheus.Collector.
func (c *agentCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *agentCollector) Collect(ch chan<- prometheus.Metric) {
	a := c.a
	gauge := func(name string, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(c.descs[name], prometheus.GaugeValue, v, labels...)
	}
	counter := func(name string, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(c.descs[name], prometheus.CounterValue, v, labels...)
	}
	gauge("corrosion_agent_build_info", 1, a.build.Version, a.build.Commit)
	var connected bool
	var reconnects uint64
	if nc := a.pub.nc.Load(); nc != nil {
		connected, reconnects = nc.IsConnected(), nc.Stats().Reconnects
	}
	gauge("corrosion_agent_nats_connected", b2f(connected))
	counter("corrosion_agent_nats_reconnects_total", float64(reconnects))
	for _, inst := range a.instances {
		id := inst.cfg.ID
		counter("corrosion_agent_instance_console_lines_total", float64(inst.console.lines.Load()), id)
		if inst.sup == nil {
			stateSet(gauge, id, unmanagedStates, unmanagedState(inst.cfg.Root))
			continue
		}
		st := inst.sup.Status()
		stateSet(gauge, id, managedStates, st.State)
		gauge("corrosion_agent_instance_uptime_seconds", float64(st.UptimeSeconds), id)
		counter("corrosion_agent_instance_restarts_total", float64(st.Restarts), id)
		counter("corrosion_agent_instance_crash_loop_stops_total", float64(st.CrashLoops), id)
		counter("corrosion_agent_instance_console_dropped_lines_total", float64(st.DroppedLines), id)
		counter("corrosion_agent_instance_console_skipped_bytes_total", float64(st.SkippedBytes), id)
	}
}

// stateSet emits one corrosion_agent_instance_state series per state of
// states, 1 for cur.
func stateSet(gauge func(string, float64, ...string), id string, states []wire.State, cur wire.State) {
	for _, s := range states {
		gauge("corrosion_agent_instance_state", b2f(s == cur), id, string(s))
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
