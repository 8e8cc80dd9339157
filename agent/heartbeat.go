package agent

import (
	"context"
	"math"
	"os"
	"runtime"
	"time"

	"github.com/corrosion/corrosion/agent/telemetry"
	"github.com/corrosion/corrosion/agent/wire"
)

// heartbeatLoop publishes a heartbeat every heartbeat_seconds ±20%, and at
// once when kicked (after a connect).
func (a *Agent) heartbeatLoop(ctx context.Context) {
	base := time.Duration(a.cfg.Agent.HeartbeatSeconds) * time.Second
	a.refreshProbe(ctx)
	timer := time.NewTimer(jitter(base))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.hbKick:
		case <-timer.C:
			timer.Reset(jitter(base))
		}
		a.publishHeartbeat(ctx)
		a.refreshProbe(ctx) // the next heartbeat carries a fresh probe
	}
}

// publishHeartbeat publishes one heartbeat and counts it: sent when the
// NATS connection is up, failed when it is not (the client buffers it
// until it reconnects, or drops it once its reconnect buffer is full).
func (a *Agent) publishHeartbeat(ctx context.Context) {
	hb := a.Heartbeat(ctx)
	result := heartbeatFailed
	if nc := a.pub.nc.Load(); nc != nil && nc.IsConnected() {
		result = heartbeatSent
	}
	a.pub.publish(wire.HeartbeatSubject(a.cfg.Agent.LicenseID), hb)
	a.metrics.heartbeat(result)
}

// refreshProbe probes the [[probe]] targets in the background; the result
// is cached for the heartbeat. Without targets there is nothing to probe.
func (a *Agent) refreshProbe(ctx context.Context) {
	if len(a.cfg.Probes) == 0 {
		return
	}
	go func() { _ = a.prober.Probe(ctx) }()
}

// Heartbeat assembles the heartbeat payload (also the sysinfo reply).
func (a *Agent) Heartbeat(ctx context.Context) wire.Heartbeat {
	insts := a.list()
	hb := wire.Heartbeat{
		Schema:    wire.Schema,
		Timestamp: time.Now().UTC(),
		Agent: wire.AgentInfo{
			Version: a.build.Version, Commit: a.build.Commit, BuildTime: a.build.Date,
			OS: runtime.GOOS, Arch: archName(), UptimeSeconds: int64(time.Since(a.started).Seconds()),
		},
		Host:      a.collector.Host(ctx),
		Instances: make([]wire.InstanceReport, 0, len(insts)),
		Probe:     a.prober.Last(),
	}
	hb.Host.PublicAddress = a.cfg.Agent.PublicAddress
	var pids []int
	for _, inst := range insts {
		r := a.report(inst)
		if r.PID > 0 {
			pids = append(pids, r.PID)
		}
		hb.Instances = append(hb.Instances, r)
	}
	if len(pids) > 0 {
		stats := a.collector.Procs(ctx, pids)
		for i := range hb.Instances {
			if st, ok := stats[hb.Instances[i].PID]; ok {
				cpu, rss := math.Round(st.CPUPercent*10)/10, st.RSSMB
				hb.Instances[i].CPUPercent, hb.Instances[i].RSSMB = &cpu, &rss
			}
		}
	}
	return hb
}

// report is one instance's heartbeat entry.
func (a *Agent) report(inst *instance) wire.InstanceReport {
	r := wire.InstanceReport{ID: inst.conf().ID, Game: inst.conf().Game, Label: inst.conf().Label, Consoles: consoles(inst),
		Source: wire.SourceHost, Ports: inst.conf().PortInfos()}
	a.mu.RLock()
	if inst.prov != nil {
		r.Source = wire.SourcePanel
	}
	a.mu.RUnlock()
	if inst.sup != nil {
		st := inst.sup.Status()
		r.State, r.UptimeSeconds, r.PID = st.State, st.UptimeSeconds, st.PID
	} else {
		r.State = unmanagedState(inst.conf().Root)
	}
	r.RootDiskFreeMB = telemetry.DiskFreeMB(inst.conf().Root)
	r.Build, r.AvailableBuild = a.tasks.builds(inst.conf().ID)
	return r
}

func unmanagedState(root string) wire.State {
	if fi, err := os.Stat(root); err == nil && fi.IsDir() {
		return wire.StateConfigured
	}
	return wire.StateMissingRoot
}

// archName reports the architecture as the seed does (x86_64, aarch64).
func archName() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "i686"
	}
	return runtime.GOARCH
}
