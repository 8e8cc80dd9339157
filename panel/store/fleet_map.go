package store

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// HostFromHeartbeat is the host prev becomes with the heartbeat r (received
// at r.Received): the one mapping of a heartbeat onto a host, used by the
// writer (columns of panel_hosts) and by the live model, so a page shows
// what the store holds. It is pure: what depends on earlier heartbeats
// (the observed interval) is left as prev has it, with DefaultInterval
// until known.
//
// Values from agents are data, not truth: what cannot be (a negative or
// above-100 % CPU, more memory used than there is, more disk free than
// its size, an instance busier than the host's cores) is clamped and
// named in Impossible, and an agent clock off by more than MaxClockSkew is
// shown in ClockSkew.
func HostFromHeartbeat(prev Host, r HeartbeatRow) Host {
	h, now := prev, r.Received
	sane, notes := saneHeartbeat(r.Heartbeat)
	hb := &sane
	h.Impossible, h.ClockSkew = notes, ClockSkew(r.Heartbeat.Timestamp, now)
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
	h.PublicAddress = hb.Host.PublicAddress
	return h
}

// InstanceFromReport is the instance prev becomes with a report of the
// heartbeat r: the one mapping of a report onto an instance, used by the
// writer and by the live model. It is stamped r.At(); StateSince moves
// when the state changes; an impossible CPU figure is clamped as
// HostFromHeartbeat says. Whether the report is newer than what prev holds
// is the caller's to decide (a status event may have set a newer state).
func InstanceFromReport(prev Instance, r *HeartbeatRow, rep wire.InstanceReport) Instance {
	in, at := prev, r.At()
	rep.CPUPercent, _ = saneInstanceCPU(rep.CPUPercent, r.Heartbeat.Host.CPUCores)
	in.ID, in.Game, in.Label = rep.ID, pgText(rep.Game), pgText(rep.Label)
	if in.State != rep.State || in.StateSince.IsZero() {
		in.State, in.StateSince = rep.State, at
	}
	in.PID, in.UptimeSeconds, in.CPUPercent, in.RSSMB = rep.PID, max(rep.UptimeSeconds, 0), rep.CPUPercent, mb(rep.RSSMB)
	in.UpdatedAt = at
	saneProvision(&rep, func(string, ...any) {}) // the notes are HostFromHeartbeat's
	in.Ports, in.Build, in.AvailableBuild = rep.Ports, rep.Build, rep.AvailableBuild
	return in
}

// MaxClockSkew is how far an agent's clock may be from the panel's: beyond
// it the agent's timestamps are not trusted to order its messages (they
// are ordered by arrival) and the host page shows the skew.
const MaxClockSkew = 30 * time.Second

// AgentTime is when something an agent stamped at stamped happened, as the
// panel orders it: stamped while the agent's clock is within MaxClockSkew
// of the panel's at received, received otherwise (a status event dated
// 9999-01-01 must not outrank every later heartbeat).
func AgentTime(stamped, received time.Time) time.Time {
	if stamped.IsZero() || ClockSkew(stamped, received) != 0 {
		return received
	}
	return stamped
}

// ClockSkew is how far ahead of the panel's clock (negative: behind) an
// agent's stamp is, when that is more than MaxClockSkew; 0 otherwise.
func ClockSkew(stamped, received time.Time) time.Duration {
	d := max(stamped.Sub(received), -math.MaxInt64) // Sub saturates for absurd dates; -d must not overflow
	if (d > MaxClockSkew || d < -MaxClockSkew) && !stamped.IsZero() {
		return d
	}
	return 0
}

// At is when the heartbeat was stamped, as the panel orders it (AgentTime).
func (r *HeartbeatRow) At() time.Time { return AgentTime(r.Heartbeat.Timestamp, r.Received) }

// EventFromStatus is the timeline event of a status event of license's
// instance received at received: the one mapping of a status event, whose
// result ingest writes and the live model applies. At is AgentTime: an
// event stamped far from the panel's clock is ordered by arrival.
func EventFromStatus(license, instance string, ev wire.StatusEvent, received time.Time) Event {
	e := ev.Event
	return Event{License: license, Instance: instance, At: AgentTime(ev.Timestamp, received), State: e.State,
		ExitCode: e.ExitCode, PID: e.PID, CrashCount: e.CrashCount, Message: e.Message}
}

// saneHeartbeat returns hb with its impossible values clamped, and a note
// naming each.
func saneHeartbeat(hb wire.Heartbeat) (wire.Heartbeat, []string) {
	var notes []string
	note := func(format string, a ...any) { notes = append(notes, fmt.Sprintf(format, a...)) }
	h := &hb.Host
	saneAddress(h, note)
	if c := h.CPUPercent; c != nil && (*c < 0 || *c > 100) {
		note("cpu %g %%", *c)
		v := min(max(*c, 0), 100)
		h.CPUPercent = &v
	}
	if h.MemUsedMB != nil && h.MemTotalMB != nil && *h.MemUsedMB > *h.MemTotalMB {
		note("memory used %d MB of %d MB", *h.MemUsedMB, *h.MemTotalMB)
		v := *h.MemTotalMB
		h.MemUsedMB = &v
	}
	if len(h.Disks) > 0 {
		disks := make([]wire.Disk, len(h.Disks))
		for i, d := range h.Disks {
			if d.FreeMB > d.TotalMB {
				note("disk %s free %d MB of %d MB", d.Mount, d.FreeMB, d.TotalMB)
				d.FreeMB = d.TotalMB
			}
			disks[i] = d
		}
		h.Disks = disks
	}
	if len(hb.Instances) > 0 {
		insts := make([]wire.InstanceReport, len(hb.Instances))
		for i, in := range hb.Instances {
			var bad bool
			if in.CPUPercent, bad = saneInstanceCPU(in.CPUPercent, h.CPUCores); bad {
				note("%s cpu %g %%", in.ID, *hb.Instances[i].CPUPercent)
			}
			saneProvision(&in, note)
			insts[i] = in
		}
		hb.Instances = insts
	}
	return hb, notes
}

// saneInstanceCPU clamps an instance's CPU (percent of one CPU) to
// 0 … 100 × the host's cores (when it reports them).
func saneInstanceCPU(cpu *float64, cores *int) (_ *float64, clamped bool) {
	if cpu == nil {
		return nil, false
	}
	hi := math.Inf(1)
	if cores != nil && *cores > 0 {
		hi = 100 * float64(*cores)
	}
	if *cpu >= 0 && *cpu <= hi {
		return cpu, false
	}
	v := min(max(*cpu, 0), hi)
	return &v, true
}

// impossibleText is the stored form of Host.Impossible.
func impossibleText(notes []string) string { return strings.Join(notes, "\n") }

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
