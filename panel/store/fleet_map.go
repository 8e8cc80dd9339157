package store

import (
	"math"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// HostFromHeartbeat is the host prev becomes with the heartbeat r (received
// at r.Received): the one mapping of a heartbeat onto a host, used by the
// writer (columns of panel_hosts) and by the live model, so a page shows
// what the store holds. It is pure: what depends on earlier heartbeats
// (the observed interval) is left as prev has it, with DefaultInterval
// until known.
func HostFromHeartbeat(prev Host, r HeartbeatRow) Host {
	h, hb, now := prev, &r.Heartbeat, r.Received
	h.Seen, h.Hostname = true, pgText(hb.Host.Hostname)
	h.AgentVersion, h.AgentCommit = pgText(hb.Agent.Version), pgText(hb.Agent.Commit)
	h.OS, h.Arch = pgText(hb.Agent.OS), pgText(hb.Agent.Arch)
	h.CPUPercent, h.CPUCores = hb.Host.CPUPercent, nil
	if hb.Host.CPUCores != nil {
		c := min(max(*hb.Host.CPUCores, 0), 1<<30)
		h.CPUCores = &c
	}
	h.MemTotalMB, h.MemUsedMB = mb(hb.Host.MemTotalMB), mb(hb.Host.MemUsedMB)
	h.DiskTotalMB, h.DiskFreeMB = diskSums(hb.Host.Disks)
	if h.FirstSeen.IsZero() {
		h.FirstSeen = now
	}
	if h.Interval <= 0 {
		h.Interval = DefaultInterval
	}
	if !h.GoingOffline.After(now) {
		h.GoingOffline = time.Time{} // a beacon older than this heartbeat is over
	}
	h.LastHeartbeat, h.Probe = now, hb.Probe
	return h
}

// InstanceFromReport is the instance prev becomes with a heartbeat's
// report stamped at (agent clock): the one mapping of a report onto an
// instance, used by the writer and by the live model. StateSince moves
// when the state changes. Whether the report is newer than what prev holds
// is the caller's to decide (a status event may have set a newer state).
func InstanceFromReport(prev Instance, rep wire.InstanceReport, at time.Time) Instance {
	in := prev
	in.ID, in.Game, in.Label = rep.ID, pgText(rep.Game), pgText(rep.Label)
	if in.State != rep.State || in.StateSince.IsZero() {
		in.State, in.StateSince = rep.State, at
	}
	in.PID, in.UptimeSeconds, in.CPUPercent, in.RSSMB = rep.PID, max(rep.UptimeSeconds, 0), rep.CPUPercent, mb(rep.RSSMB)
	in.UpdatedAt = at
	return in
}

// diskSums totals a heartbeat's disks (nil, nil: none reported).
func diskSums(disks []wire.Disk) (total, free *int64) {
	if len(disks) == 0 {
		return nil, nil
	}
	var t, f uint64
	for _, d := range disks {
		t, f = satAdd(t, d.TotalMB), satAdd(f, d.FreeMB)
	}
	return mb(&t), mb(&f)
}

func satAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}
