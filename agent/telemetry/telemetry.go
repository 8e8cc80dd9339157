// Package telemetry measures the host for the heartbeat (CPU, memory,
// uptime, disks, per-process CPU and RSS) with gopsutil, and probes TCP
// reachability of configured targets. It never invents a value: what cannot
// be measured is left nil or omitted.
package telemetry

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/host"
	"github.com/shirou/gopsutil/v4/mem"

	"github.com/corrosion/corrosion/agent/wire"
)

// staticTTL is how long the slowly changing facts (hostname, core count,
// mount list) are cached.
const staticTTL = 5 * time.Minute

// Collector measures host telemetry. It is safe for concurrent use.
//
// Cost per Host call: one read each of /proc/stat and /proc/meminfo, one
// sysinfo(2), one statfs(2) per disk; the hostname, core count and mount
// list are re-read every five minutes.
type Collector struct {
	logger *slog.Logger  // immutable after New
	window time.Duration // immutable after New: minCPUWindow (tests change it)

	mu       sync.Mutex
	static   staticInfo      // guarded by mu
	staticAt time.Time       // guarded by mu; zero: never read
	cpu      cpuSampler      // guarded by mu
	failed   map[string]bool // guarded by mu: measurement kinds that failed before

	procMu sync.Mutex
	procs  map[int32]procSample // guarded by procMu
}

// staticInfo is what Host caches for staticTTL.
type staticInfo struct {
	hostname string
	cores    int // 0: unknown
	mounts   []mount
}

// NewCollector returns a Collector. It takes the first CPU sample so that
// the first Host call can report CPU use since then.
func NewCollector(logger *slog.Logger) *Collector {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Collector{
		logger: logger.With("component", "telemetry"),
		window: minCPUWindow,
		failed: map[string]bool{},
		procs:  map[int32]procSample{},
	}
	c.mu.Lock()
	c.cpu.prime(context.Background(), c.failLocked)
	c.mu.Unlock()
	return c
}

// Host measures the host now:
//
//   - hostname: os.Hostname (cached 5 min); omitted when unavailable.
//   - cpu_percent: busy share of all CPUs, 0-100, over the window since the
//     previous measurement (see cpuSampler for the first call and for calls
//     closer together than 200ms).
//   - cpu_cores: logical CPUs of the host (cached 5 min).
//   - mem_total_mb, mem_used_mb: MiB; used is total minus available (the
//     kernel's MemAvailable), so page cache counts as free.
//   - uptime_seconds: since boot.
//   - disks: local block-device filesystems, one per device (see disks.go):
//     total and free MiB, free being what an unprivileged user can use.
func (c *Collector) Host(ctx context.Context) wire.HostInfo {
	c.mu.Lock()
	st := c.staticLocked(ctx)
	cpuPct := c.cpu.percent(ctx, c.window, c.failLocked)
	c.mu.Unlock()

	h := wire.HostInfo{Hostname: st.hostname, CPUPercent: cpuPct}
	if st.cores > 0 {
		h.CPUCores = new(st.cores)
	}
	if vm, err := mem.VirtualMemoryWithContext(ctx); err != nil || vm.Total == 0 {
		c.fail("memory", err)
	} else {
		h.MemTotalMB = new(vm.Total >> 20)
		h.MemUsedMB = new(vm.Used >> 20)
	}
	if up, err := host.UptimeWithContext(ctx); err != nil || up == 0 {
		c.fail("uptime", err)
	} else {
		h.UptimeSeconds = new(up)
	}
	h.Disks = c.disks(ctx, st.mounts)
	return h
}

// staticLocked returns the cached static facts, re-reading them when stale.
func (c *Collector) staticLocked(ctx context.Context) staticInfo {
	if !c.staticAt.IsZero() && time.Since(c.staticAt) < staticTTL {
		return c.static
	}
	var st staticInfo
	if name, err := os.Hostname(); err != nil || name == "" {
		c.failLocked("hostname", err)
	} else {
		st.hostname = name
	}
	if n, err := cpu.CountsWithContext(ctx, true); err != nil || n < 1 {
		c.failLocked("cpu_cores", err)
	} else {
		st.cores = n
	}
	mounts, err := listMounts(ctx)
	if err != nil {
		c.failLocked("disks", err)
		mounts = c.static.mounts // keep the last good list
	}
	st.mounts = mounts
	c.static, c.staticAt = st, time.Now()
	return st
}

// fail records that a measurement could not be made: logged at warn the
// first time per kind, at debug after, so a missing metric does not flood
// the log every heartbeat.
func (c *Collector) fail(kind string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failLocked(kind, err)
}

func (c *Collector) failLocked(kind string, err error) {
	level := slog.LevelWarn
	if c.failed[kind] {
		level = slog.LevelDebug
	}
	c.failed[kind] = true
	c.logger.Log(context.Background(), level, "telemetry unavailable; omitted", "metric", kind, "err", err)
}
