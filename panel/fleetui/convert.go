package fleetui

import (
	"strconv"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// hostRow is a host as the fleet table (and host page head) shows it; the
// one conversion the pages and the live fragments share.
func hostRow(h store.Host, spark []float64, now time.Time) ui.HostRow {
	online := h.Seen && h.OnlineAt(now)
	row := ui.HostRow{
		License: h.License, Label: h.Label, HostName: h.Hostname, AgentVersion: h.AgentVersion,
		Seen: h.Seen, Online: online, Stale: staleText(h, online, now),
		CPU: percent(h.CPUPercent), Mem: usedOfTotal(h.MemUsedMB, h.MemTotalMB),
		Disk:  usedOfTotal(diskUsed(h.DiskTotalMB, h.DiskFreeMB), h.DiskTotalMB),
		Spark: spark, Counts: counts(h.Counts),
	}
	return row
}

// staleText says how old what the page shows of an offline host is.
func staleText(h store.Host, online bool, now time.Time) string {
	switch {
	case online:
		return ""
	case !h.Seen:
		return "no heartbeat yet"
	case !h.GoingOffline.IsZero() && !h.GoingOffline.Before(h.LastHeartbeat):
		return "agent shut down " + ui.Ago(h.GoingOffline, now)
	}
	return "last heartbeat " + ui.Ago(h.LastHeartbeat, now)
}

func counts(m map[wire.State]int) []ui.StateCount {
	var out []ui.StateCount
	for _, st := range ui.InstanceStates {
		if n := m[wire.State(st)]; n > 0 {
			out = append(out, ui.StateCount{State: st, N: n})
		}
	}
	for st, n := range m { // a state this panel does not know yet: still counted
		if n > 0 && !known(string(st)) {
			out = append(out, ui.StateCount{State: string(st), N: n})
		}
	}
	return out
}

func known(st string) bool {
	for _, s := range ui.InstanceStates {
		if s == st {
			return true
		}
	}
	return false
}

func sparkOf(samples []store.Sample) []float64 {
	out := make([]float64, 0, len(samples))
	for _, s := range samples {
		if s.CPUPercent != nil {
			out = append(out, *s.CPUPercent)
		}
	}
	return out
}

func percent(v *float64) string {
	if v == nil {
		return "—"
	}
	if *v < 10 {
		return strconv.FormatFloat(*v, 'f', 1, 64) + " %"
	}
	return strconv.FormatFloat(*v, 'f', 0, 64) + " %"
}

func diskUsed(total, free *int64) *int64 {
	if total == nil || free == nil {
		return nil
	}
	u := *total - *free
	return &u
}

// usedOfTotal renders "3.1 / 7.8 GiB" (or MiB for small totals).
func usedOfTotal(used, total *int64) string {
	if total == nil || *total <= 0 {
		if used != nil {
			return mib(*used)
		}
		return "—"
	}
	if used == nil {
		return "? / " + mib(*total)
	}
	if *total < 1024 {
		return strconv.FormatInt(*used, 10) + " / " + strconv.FormatInt(*total, 10) + " MiB"
	}
	return gib(*used) + " / " + gib(*total) + " GiB"
}

func mib(v int64) string {
	if v < 1024 {
		return strconv.FormatInt(v, 10) + " MiB"
	}
	return gib(v) + " GiB"
}

func gib(mb int64) string {
	g := float64(mb) / 1024
	if g >= 100 {
		return strconv.FormatFloat(g, 'f', 0, 64)
	}
	return strconv.FormatFloat(g, 'f', 1, 64)
}

func mibPtr(v *int64) string {
	if v == nil {
		return "—"
	}
	return mib(*v)
}

// instanceRow is an instance as a host's table shows it.
func instanceRow(in store.Instance, hostOnline bool, stale string, why string, now time.Time) ui.InstanceRow {
	return ui.InstanceRow{
		License: in.License, ID: in.ID, Label: in.Label, Game: in.Game, State: string(in.State),
		HostOnline: hostOnline, Stale: stale, Uptime: uptime(in, hostOnline, now), CrashCount: in.CrashCount,
		PID: in.PID, CPU: percent(in.CPUPercent), RSS: mibPtr(in.RSSMB), CanAct: why == "", Why: why,
	}
}

// uptime is the instance's uptime now: the reported uptime plus the time
// since the report while it runs and its host is online.
func uptime(in store.Instance, hostOnline bool, now time.Time) string {
	if !in.State.Up() {
		return "—"
	}
	d := time.Duration(in.UptimeSeconds) * time.Second
	if hostOnline && !in.UpdatedAt.IsZero() && now.After(in.UpdatedAt) {
		d += now.Sub(in.UpdatedAt)
	}
	return ui.Duration(d)
}

func details(in store.Instance, hostOnline bool, stale string, now time.Time) ui.InstanceDetails {
	return ui.InstanceDetails{
		State: string(in.State), HostOnline: hostOnline, Stale: stale, StateSince: in.StateSince,
		Uptime: uptime(in, hostOnline, now), CrashCount: in.CrashCount, PID: in.PID,
		CPU: percent(in.CPUPercent), RSS: mibPtr(in.RSSMB), LastMessage: in.LastMessage,
	}
}

func timelineRows(evs []store.Event) []ui.TimelineRow {
	out := make([]ui.TimelineRow, len(evs))
	for i, e := range evs {
		out[i] = ui.TimelineRow{At: e.At, State: string(e.State), PID: e.PID, CrashCount: e.CrashCount, Message: e.Message}
		if e.ExitCode != nil {
			out[i].ExitCode = strconv.Itoa(*e.ExitCode)
		}
	}
	return out
}

func probeRows(p *wire.ProbeReport) (time.Time, []ui.ProbeRow) {
	if p == nil {
		return time.Time{}, nil
	}
	out := make([]ui.ProbeRow, len(p.Results))
	for i, r := range p.Results {
		out[i] = ui.ProbeRow{Name: r.Name, Target: r.Host + ":" + strconv.Itoa(r.Port), OK: r.OK, Error: r.Error, Latency: "—"}
		if r.LatencyMS != nil {
			out[i].Latency = strconv.FormatFloat(*r.LatencyMS, 'f', 1, 64) + " ms"
		}
	}
	return p.Timestamp, out
}
