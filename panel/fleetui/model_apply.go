package fleetui

import (
	"hash/maphash"
	"maps"
	"slices"

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
	// state: the host's online state, its instance counts or its
	// instances' names or games changed (not only telemetry): a fleet page
	// opened just before gets it in its snapshot, the Servers page
	// refetches its table.
	state bool
}

// namesOf hashes the instances' ids, labels and games, in report order.
func namesOf(insts []wire.InstanceReport) uint64 {
	var h maphash.Hash
	h.SetSeed(dedupeSeed)
	for _, in := range insts {
		h.WriteString(in.ID)
		h.WriteByte(0)
		h.WriteString(in.Label)
		h.WriteByte(0)
		h.WriteString(in.Game)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// heartbeat applies a committed heartbeat.
func (lh *liveHost) heartbeat(r *store.HeartbeatRow) (set renderSet) {
	h, hb, now := &lh.host, &r.Heartbeat, r.Received
	set = renderSet{host: true, fleetNew: !h.Seen, state: !h.Seen || !h.GoingOffline.IsZero()}
	if !h.Seen {
		lh.seenAt = now
	}
	before := maps.Clone(h.Counts)
	defer func() { set.state = set.state || !maps.Equal(before, h.Counts) }()
	if names := namesOf(hb.Instances); names != lh.names {
		lh.names, set.state = names, true // a label or game arrived or changed
	}
	lh.host = store.HostFromHeartbeat(lh.host, *r)
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
		if lh.report(r, rep) {
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

// report applies one instance report of the heartbeat r.
func (lh *liveHost) report(r *store.HeartbeatRow, rep *wire.InstanceReport) (added bool) {
	at := r.At()
	in := lh.insts[rep.ID]
	if in == nil {
		in = &store.Instance{License: lh.host.License, ID: rep.ID, State: rep.State, StateSince: at}
		lh.insts[rep.ID] = in
		lh.order = append(lh.order, rep.ID)
		added = true
	}
	if at.Before(in.StateSince) {
		in.Game, in.Label = rep.Game, rep.Label
		return added // a status event newer than this heartbeat already set the state
	}
	*in = store.InstanceFromReport(*in, r, *rep)
	return added
}

// status applies an instance's committed status event.
func (lh *liveHost) status(id string, e *store.Event) renderSet {
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
	at := e.At
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
