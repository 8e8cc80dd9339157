package telemetry

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"

	"github.com/corrosion/corrosion/internal/ctxtime"
)

// minCPUWindow is the shortest window a CPU percentage is computed over;
// shorter windows hold too few clock ticks (10ms each on Linux) to mean
// much.
const minCPUWindow = 200 * time.Millisecond

// cpuSampler turns cumulative CPU times into a busy percentage over the
// window since the previous sample.
//
//   - The baseline is taken by NewCollector, so the first Host call
//     measures the window since then. If that window is shorter than
//     minCPUWindow and no percentage exists yet, that first call waits out
//     the rest (at most 200ms, once in the Collector's life, abandoned
//     when ctx ends).
//   - A call less than minCPUWindow after the previous sample returns the
//     previous percentage (measured over the window before) and keeps the
//     baseline, so a sysinfo request right after a heartbeat neither
//     reports noise nor shortens the heartbeat's window.
//   - When the times cannot be read, cpu_percent is omitted.
type cpuSampler struct {
	prev   cpuTimes // baseline; at.IsZero(): none
	last   float64  // the last percentage computed
	hasPct bool     // last is set
}

type cpuTimes struct {
	busy, total float64 // seconds, summed over all CPUs
	at          time.Time
}

func readCPU(ctx context.Context) (cpuTimes, error) {
	ts, err := cpu.TimesWithContext(ctx, false)
	if err != nil {
		return cpuTimes{}, err
	}
	if len(ts) == 0 {
		return cpuTimes{}, errors.New("no cpu times")
	}
	t := ts[0]
	// Guest time is already counted in user time on Linux; leave it out.
	total := t.User + t.System + t.Idle + t.Nice + t.Iowait + t.Irq + t.Softirq + t.Steal
	return cpuTimes{busy: total - t.Idle - t.Iowait, total: total, at: time.Now()}, nil
}

// prime takes a baseline.
func (s *cpuSampler) prime(ctx context.Context, fail func(string, error)) {
	t, err := readCPU(ctx)
	if err != nil {
		fail("cpu_percent", err)
		return
	}
	s.prev = t
}

// percent returns the busy percentage (0-100) since the baseline, or nil.
func (s *cpuSampler) percent(ctx context.Context, window time.Duration, fail func(string, error)) *float64 {
	if s.prev.at.IsZero() {
		s.prime(ctx, fail)
		return nil // no baseline until now
	}
	if wait := window - time.Since(s.prev.at); wait > 0 {
		if s.hasPct {
			return new(s.last)
		}
		if !ctxtime.Sleep(ctx, wait) {
			return nil
		}
	}
	now, err := readCPU(ctx)
	if err != nil {
		fail("cpu_percent", err)
		return nil
	}
	dt, db := now.total-s.prev.total, now.busy-s.prev.busy
	if dt <= 0 { // no tick counted yet
		if s.hasPct {
			return new(s.last)
		}
		return nil
	}
	pct := math.Round(min(max(db/dt*100, 0), 100)*100) / 100
	s.prev, s.last, s.hasPct = now, pct, true
	return new(pct)
}
