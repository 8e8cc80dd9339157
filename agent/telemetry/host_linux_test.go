package telemetry

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// procValue reads "Key: N ..." from a /proc file such as /proc/meminfo.
func procValue(t *testing.T, file, key string) uint64 {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			n, err := strconv.ParseUint(strings.Fields(rest)[0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("%s: no %s", file, key)
	return 0
}

func cpuinfoProcessors(t *testing.T) int {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "processor") {
			n++
		}
	}
	return n
}

func TestHost_MatchesProc(t *testing.T) {
	c := NewCollector(testLogger(t))
	h := c.Host(context.Background())

	if name, _ := os.Hostname(); h.Hostname != name {
		t.Errorf("hostname %q, want %q", h.Hostname, name)
	}
	// cpu_cores is the host's logical CPUs; runtime.NumCPU is this
	// process's affinity, equal unless the agent is pinned to fewer.
	if h.CPUCores == nil || *h.CPUCores != cpuinfoProcessors(t) || *h.CPUCores < runtime.NumCPU() {
		t.Errorf("cpu_cores %v, want %d (/proc/cpuinfo), runtime.NumCPU %d", h.CPUCores, cpuinfoProcessors(t), runtime.NumCPU())
	}
	if *h.CPUCores != runtime.NumCPU() {
		t.Logf("note: runtime.NumCPU %d != host cores %d (affinity)", runtime.NumCPU(), *h.CPUCores)
	}
	if h.CPUPercent == nil || *h.CPUPercent < 0 || *h.CPUPercent > 100 {
		t.Errorf("cpu_percent %v, want 0-100 (first call takes a short sample)", h.CPUPercent)
	}

	totalMB := procValue(t, "/proc/meminfo", "MemTotal") / 1024
	if h.MemTotalMB == nil || !within(*h.MemTotalMB, totalMB, totalMB/100) {
		t.Errorf("mem_total_mb %v, want %d ±1%%", h.MemTotalMB, totalMB)
	}
	usedMB := totalMB - procValue(t, "/proc/meminfo", "MemAvailable")/1024
	if h.MemUsedMB == nil || *h.MemUsedMB > *h.MemTotalMB || !within(*h.MemUsedMB, usedMB, totalMB/50) {
		t.Errorf("mem_used_mb %v, want %d ±2%% of total", h.MemUsedMB, usedMB)
	}

	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		t.Fatal(err)
	}
	secs, _ := strconv.ParseFloat(strings.Fields(string(up))[0], 64)
	if h.UptimeSeconds == nil || !within(*h.UptimeSeconds, uint64(secs), 5) {
		t.Errorf("uptime_seconds %v, want %.0f ±5", h.UptimeSeconds, secs)
	}
}

// Filesystem magic numbers (statfs(2)) of what must never be reported.
var pseudoMagic = map[int64]string{
	0x01021994: "tmpfs", 0x9fa0: "proc", 0x62656572: "sysfs", 0x794c7630: "overlay",
	0x27e0eb: "cgroup", 0x63677270: "cgroup2", 0x1cd1: "devpts", 0x73717368: "squashfs",
}

func TestHost_DisksAreRealAndDeduped(t *testing.T) {
	h := NewCollector(testLogger(t)).Host(context.Background())
	devices := map[uint64]string{}
	for _, d := range h.Disks {
		var fs syscall.Statfs_t
		if err := syscall.Statfs(d.Mount, &fs); err != nil {
			t.Errorf("%s: %v", d.Mount, err)
			continue
		}
		if name, bad := pseudoMagic[int64(fs.Type)]; bad {
			t.Errorf("%s is %s, a pseudo filesystem", d.Mount, name)
		}
		if d.FreeMB > d.TotalMB || d.TotalMB == 0 {
			t.Errorf("%s: free %d of total %d", d.Mount, d.FreeMB, d.TotalMB)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(d.Mount, &st); err == nil {
			if other, dup := devices[st.Dev]; dup {
				t.Errorf("device of %s reported twice (also %s)", d.Mount, other)
			}
			devices[st.Dev] = d.Mount
		}
	}
	t.Logf("disks: %+v", h.Disks)

	// The filesystem holding the working directory is a real disk here
	// unless it is a pseudo filesystem (a tmpfs /tmp is skipped on purpose).
	wd, _ := os.Getwd()
	var fs syscall.Statfs_t
	if err := syscall.Statfs(wd, &fs); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(wd, &st); err != nil {
		t.Fatal(err)
	}
	if _, pseudo := pseudoMagic[int64(fs.Type)]; !pseudo {
		mount, ok := devices[st.Dev]
		if !ok {
			t.Fatalf("the disk holding %s (dev %d) is not reported", wd, st.Dev)
		}
		freeMB := fs.Bavail * uint64(fs.Bsize) >> 20
		for _, d := range h.Disks {
			if d.Mount == mount && !within(d.FreeMB, freeMB, 256) {
				t.Errorf("%s free %d MiB, statfs says %d", mount, d.FreeMB, freeMB)
			}
		}
	}
}

func TestDiskFreeMB_MatchesStatfs(t *testing.T) {
	dir := t.TempDir()
	got := DiskFreeMB(dir)
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	want := fs.Bavail * uint64(fs.Bsize) >> 20
	totalMB := fs.Blocks * uint64(fs.Bsize) >> 20
	// Others write to this disk meanwhile: allow 1% of it, at least 64 MiB.
	if got == nil || !within(*got, want, max(totalMB/100, 64)) {
		t.Errorf("DiskFreeMB(%s) = %v, statfs says %d MiB", dir, got, want)
	}
}

func TestProcs_Self(t *testing.T) {
	c := NewCollector(testLogger(t))
	pid := os.Getpid()
	got := c.Procs(context.Background(), []int{pid, 0, -1, 1 << 30})
	if len(got) != 1 {
		t.Fatalf("Procs = %v, want only pid %d", got, pid)
	}
	st := got[pid]
	rssMB := procValue(t, "/proc/self/status", "VmRSS") / 1024
	if st.RSSMB == 0 || !within(st.RSSMB, rssMB, max(rssMB/5, 8)) {
		t.Errorf("rss %d MiB, /proc/self/status says %d", st.RSSMB, rssMB)
	}
	if st.CPUPercent < 0 {
		t.Errorf("cpu %v", st.CPUPercent)
	}
	// Within the window the previous percentage is repeated, not re-measured.
	c.window = time.Hour
	again := c.Procs(context.Background(), []int{pid})[pid]
	if again.CPUPercent != st.CPUPercent {
		t.Errorf("second call within the window: %v, want %v", again.CPUPercent, st.CPUPercent)
	}
}
