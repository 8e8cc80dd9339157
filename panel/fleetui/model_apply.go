package fleetui

import (
	"maps"
	"slices"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/store"
)

// renderSet is what an event changed: the host's own fragments, some
// instances' fragments, some instances' timelines.
type renderSet struct {
	host     bool
	insts    []string
	timeline []string
	fleetNew bool // a host the open fleet pages may not list
	layout   bool // an instance appeared or disappeared: host and instance pages refetch
	// state: the host's online state or its instance counts changed (not
	// only telemetry): a fleet page opened just before gets it in its
	// snapshot.
	state bool
}

// heartbeat applies a heartbeat received at now.
func (lh *liveHost) heartbeat(hb *wire.Heartbeat, now time.Time) (set renderSet) {
	h := &lh.host
	set = renderSet{host: true, fleetNew: !h.Seen, state: !h.Seen || !h.GoingOffline.IsZero()}
	if !h.Seen {
		lh.seenAt = now
	}
	before := maps.Clone(h.Counts)
	defer func() { set.state = set.state || !maps.Equal(before, h.Counts) }()
	h.Seen, h.Hostname, h.AgentVersion, h.AgentCommit = true, hb.Host.Hostname, hb.Agent.Version, hb.Agent.Commit
	h.OS, h.Arch, h.CPUPercent, h.CPUCores = hb.Agent.OS, hb.Agent.Arch, hb.Host.CPUPercent, hb.Host.CPUCores
	h.MemTotalMB, h.MemUsedMB = i64(hb.Host.MemTotalMB), i64(hb.Host.MemUsedMB)
	h.DiskTotalMB, h.DiskFreeMB = nil, nil
	if len(hb.Host.Disks) > 0 {
		var total, free int64
		for _, d := range hb.Host.Disks {
			total, free = total+int64(d.TotalMB), free+int64(d.FreeMB)
		}
		h.DiskTotalMB, h.DiskFreeMB = &total, &free
	}
	if h.FirstSeen.IsZero() {
		h.FirstSeen = now
	}
	if h.Interval <= 0 {
		h.Interval = store.DefaultInterval // the store's until it has observed one
	}
	h.LastHeartbeat, h.GoingOffline, h.Probe = now, time.Time{}, hb.Probe
	if h.CPUPercent != nil && now.Sub(lh.sparkAt) >= sparkEvery {
		lh.spark = append(lh.spark, *h.CPUPercent)
		if len(lh.spark) > SparkSamples {
			lh.spark = slices.Delete(lh.spark, 0, len(lh.spark)-SparkSamples)
		}
		lh.sparkAt = now
	}
	if lh.insts == nil { // a fleet-view host: only its counts
		h.Counts = make(map[wire.State]int, len(hb.Instances))
		for _, rep := range hb.Instances {
			h.Counts[rep.State]++
		}
		return set
	}
	seen := make(map[string]bool, len(hb.Instances))
	for i := range hb.Instances {
		rep := &hb.Instances[i]
		seen[rep.ID] = true
		if lh.report(rep, hb.Timestamp) {
			set.layout = true
		}
		set.insts = append(set.insts, rep.ID)
	}
	for id := range lh.insts {
		if !seen[id] {
			delete(lh.insts, id)
			set.layout = true
		}
	}
	lh.order = slices.DeleteFunc(lh.order, func(id string) bool { return !seen[id] })
	lh.counts()
	return set
}

// report applies one instance of a heartbeat stamped at (agent clock).
func (lh *liveHost) report(rep *wire.InstanceReport, at time.Time) (added bool) {
	in := lh.insts[rep.ID]
	if in == nil {
		in = &store.Instance{License: lh.host.License, ID: rep.ID, State: rep.State, StateSince: at}
		lh.insts[rep.ID] = in
		lh.order = append(lh.order, rep.ID)
		added = true
	}
	in.Game, in.Label = rep.Game, rep.Label
	if at.Before(in.StateSince) {
		return added // a status event newer than this heartbeat already set the state
	}
	if in.State != rep.State {
		in.State, in.StateSince = rep.State, at
	}
	in.PID, in.UptimeSeconds, in.CPUPercent, in.RSSMB, in.UpdatedAt = rep.PID, rep.UptimeSeconds, rep.CPUPercent, i64(rep.RSSMB), at
	return added
}

// status applies an instance's status event.
func (lh *liveHost) status(id string, ev *wire.StatusEvent, now time.Time) renderSet {
	set := renderSet{host: true, state: true, insts: []string{id}, timeline: []string{id}}
	if lh.insts == nil {
		return set // a fleet-view host: its counts follow with the next heartbeat
	}
	in := lh.insts[id]
	if in == nil {
		in = &store.Instance{License: lh.host.License, ID: id}
		lh.insts[id] = in
		lh.order = append(lh.order, id)
		set.layout = true
	}
	at := ev.Timestamp
	if at.IsZero() {
		at = now
	}
	e := ev.Event
	in.State, in.StateSince, in.PID, in.CrashCount, in.LastMessage = e.State, at, e.PID, e.CrashCount, e.Message
	if !e.State.Up() || e.State == wire.StateStarting {
		in.UptimeSeconds, in.UpdatedAt = 0, at
	}
	if !e.State.Up() {
		in.CPUPercent, in.RSSMB = nil, nil
	}
	lh.counts()
	return set
}

func i64(v *uint64) *int64 {
	if v == nil {
		return nil
	}
	n := int64(*v)
	return &n
}
