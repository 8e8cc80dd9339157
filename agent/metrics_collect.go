package agent

import (
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/scrape"
)

// States of corrosion_agent_instance_state, one series each: a state set
// (node exporter's systemd_unit_state style), 1 for the current state.
var (
	managedStates   = []wire.State{wire.StateStopped, wire.StateStarting, wire.StateRunning, wire.StateStopping, wire.StateCrashed}
	unmanagedStates = []wire.State{wire.StateConfigured, wire.StateMissingRoot}
)

// agentMetricDefs are the metrics collectAgent reads at scrape time.
var agentMetricDefs = []scrape.Def{
	{Name: "corrosion_agent_build_info", Help: "Constant 1, labelled with the agent's version and commit.", Labels: []string{"version", "commit"}},
	{Name: "corrosion_agent_nats_connected", Help: "1 while the NATS connection is up."},
	{Name: "corrosion_agent_nats_reconnects_total", Help: "Connections made while reconnecting to NATS (nats.go's count; see docs/agent.md)."},
	{Name: "corrosion_agent_instance_state", Help: "1 for the instance's current state, 0 for its other states.", Labels: []string{"instance", "state"}},
	{Name: "corrosion_agent_instance_uptime_seconds", Help: "Seconds the managed instance's process has run (0 unless running or stopping).", Labels: []string{"instance"}},
	{Name: "corrosion_agent_instance_restarts_total", Help: "Restarts of the managed instance after a crash (the restart policy).", Labels: []string{"instance"}},
	{Name: "corrosion_agent_instance_crash_loop_stops_total", Help: "Times the crash-loop limit stopped restarting the managed instance.", Labels: []string{"instance"}},
	{Name: "corrosion_agent_instance_console_lines_total", Help: "Console lines published for the instance (output, agent notices, RCON broadcasts).", Labels: []string{"instance"}},
	{Name: "corrosion_agent_instance_console_dropped_lines_total", Help: "Console lines of the managed instance the rate limit dropped.", Labels: []string{"instance"}},
	{Name: "corrosion_agent_instance_console_skipped_bytes_total", Help: "Console output of the managed instance passed over unread while the rate limit had no room.", Labels: []string{"instance"}},
}

// newAgentCollector exposes the agent's state to Prometheus, read at
// scrape time.
func newAgentCollector(a *Agent) *scrape.Collector {
	return scrape.New(agentMetricDefs, a.collectMetrics)
}

// collectMetrics emits the values of agentMetricDefs.
func (a *Agent) collectMetrics(e scrape.Emit) {
	e.Gauge("corrosion_agent_build_info", 1, a.build.Version, a.build.Commit)
	var connected bool
	var reconnects uint64
	if nc := a.pub.nc.Load(); nc != nil {
		connected, reconnects = nc.IsConnected(), nc.Stats().Reconnects
	}
	e.Flag("corrosion_agent_nats_connected", connected)
	e.Counter("corrosion_agent_nats_reconnects_total", float64(reconnects))
	for _, inst := range a.list() {
		id := inst.conf().ID
		e.Counter("corrosion_agent_instance_console_lines_total", float64(inst.console.lines.Load()), id)
		if inst.sup == nil {
			stateSet(e, id, unmanagedStates, unmanagedState(inst.conf().Root))
			continue
		}
		st := inst.sup.Status()
		stateSet(e, id, managedStates, st.State)
		e.Gauge("corrosion_agent_instance_uptime_seconds", float64(st.UptimeSeconds), id)
		e.Counter("corrosion_agent_instance_restarts_total", float64(st.Restarts), id)
		e.Counter("corrosion_agent_instance_crash_loop_stops_total", float64(st.CrashLoops), id)
		e.Counter("corrosion_agent_instance_console_dropped_lines_total", float64(st.DroppedLines), id)
		e.Counter("corrosion_agent_instance_console_skipped_bytes_total", float64(st.SkippedBytes), id)
	}
}

// stateSet emits one corrosion_agent_instance_state series per state of
// states, 1 for cur.
func stateSet(e scrape.Emit, id string, states []wire.State, cur wire.State) {
	for _, s := range states {
		e.Flag("corrosion_agent_instance_state", s == cur, id, string(s))
	}
}
