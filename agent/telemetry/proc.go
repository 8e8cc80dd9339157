package telemetry

import (
	"context"
	"math"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// ProcStats is one process's resource use.
type ProcStats struct {
	// CPUPercent is CPU time over wall time, in percent of one CPU (as
	// top shows it: 200 is two CPUs busy). Over the window since the
	// previous Procs call that measured this process; the first time, over
	// the process's whole life.
	CPUPercent float64
	// RSSMB is the resident set size in MiB.
	RSSMB uint64
}

// procSample is the CPU baseline of one process.
type procSample struct {
	created int64   // start time, ms since the epoch (tells PID reuse apart)
	cpuSecs float64 // user + system seconds
	at      time.Time
	pct     float64 // the percentage computed at this sample
}

// Procs measures the given processes (the PIDs of running instances). A
// process that cannot be measured (exited, not permitted) is absent from
// the result. Baselines are kept only for the PIDs of the latest call, so
// pass every PID of interest each time. Calls closer together than 200ms
// repeat the previous percentage rather than measure a tiny window.
func (c *Collector) Procs(ctx context.Context, pids []int) map[int]ProcStats {
	c.procMu.Lock()
	defer c.procMu.Unlock()
	out := make(map[int]ProcStats, len(pids))
	next := make(map[int32]procSample, len(pids))
	for _, pid := range pids {
		if pid <= 0 || pid > math.MaxInt32 {
			continue
		}
		st, sample, ok := c.measureProcLocked(ctx, int32(pid))
		if ok {
			out[pid], next[int32(pid)] = st, sample
		}
	}
	c.procs = next
	return out
}

func (c *Collector) measureProcLocked(ctx context.Context, pid int32) (ProcStats, procSample, bool) {
	p, err := process.NewProcessWithContext(ctx, pid)
	if err != nil {
		return ProcStats{}, procSample{}, false
	}
	created, err := p.CreateTimeWithContext(ctx)
	if err != nil {
		return ProcStats{}, procSample{}, false
	}
	times, err := p.TimesWithContext(ctx)
	if err != nil {
		return ProcStats{}, procSample{}, false
	}
	mi, err := p.MemoryInfoWithContext(ctx)
	if err != nil {
		return ProcStats{}, procSample{}, false
	}
	now := time.Now()
	cur := procSample{created: created, cpuSecs: times.User + times.System, at: now}
	base := procSample{at: time.UnixMilli(created)} // first sight: whole life
	if prev, ok := c.procs[pid]; ok && prev.created == created {
		if now.Sub(prev.at) < c.window {
			return ProcStats{CPUPercent: prev.pct, RSSMB: mi.RSS >> 20}, prev, true
		}
		base = prev
	}
	if wall := now.Sub(base.at).Seconds(); wall > 0 {
		cur.pct = math.Round(max(cur.cpuSecs-base.cpuSecs, 0)/wall*100*100) / 100
	}
	return ProcStats{CPUPercent: cur.pct, RSSMB: mi.RSS >> 20}, cur, true
}
