package telemetry

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/disk"
)

func TestHost_Sane(t *testing.T) {
	c := NewCollector(testLogger(t))
	h := c.Host(context.Background())
	if h.Hostname == "" || h.CPUCores == nil || h.MemTotalMB == nil || h.MemUsedMB == nil || h.UptimeSeconds == nil {
		t.Fatalf("measurable fields missing: %+v", h)
	}
	if *h.CPUCores < 1 || *h.MemTotalMB == 0 || *h.MemUsedMB > *h.MemTotalMB {
		t.Errorf("insane values: cores %d, mem %d/%d", *h.CPUCores, *h.MemUsedMB, *h.MemTotalMB)
	}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("host: %s", b)
	// Fresh pointers each call: a caller may keep or change them.
	h2 := c.Host(context.Background())
	if h2.CPUCores == h.CPUCores || h2.MemTotalMB == h.MemTotalMB {
		t.Error("Host shares pointers between calls")
	}
}

func TestCPUSampler(t *testing.T) {
	var fails []string
	fail := func(kind string, err error) { fails = append(fails, kind+": "+err.Error()) }
	ctx := context.Background()

	var s cpuSampler
	if p := s.percent(ctx, 0, fail); p != nil {
		t.Errorf("no baseline: got %v, want nil (this call primes)", *p)
	}
	if s.prev.at.IsZero() {
		t.Fatal("percent without a baseline did not prime")
	}
	// Pretend a second passed, so a window exists.
	s.prev.at = s.prev.at.Add(-time.Second)
	s.prev.total -= 1e-9 // at least one tick
	p := s.percent(ctx, time.Millisecond, fail)
	if p == nil || *p < 0 || *p > 100 {
		t.Fatalf("percent = %v, want 0-100", p)
	}
	// Within the window: the previous value, baseline kept.
	base := s.prev
	if q := s.percent(ctx, time.Hour, fail); q == nil || *q != *p || s.prev != base {
		t.Errorf("within window: %v (baseline moved: %v), want %v", q, s.prev != base, *p)
	}
	if len(fails) > 0 {
		t.Errorf("failures: %v", fails)
	}
}

func TestCPUSampler_FirstShortSampleHonoursContext(t *testing.T) {
	var s cpuSampler
	s.prime(context.Background(), func(string, error) {})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if p := s.percent(ctx, time.Hour, func(string, error) {}); p != nil {
		t.Errorf("cancelled first sample: %v, want nil", *p)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancelled wait took %v", d)
	}
}

func TestDiskFreeMB_Unmeasurable(t *testing.T) {
	for _, p := range []string{"", filepath.Join(t.TempDir(), "does", "not", "exist")} {
		if got := DiskFreeMB(p); got != nil {
			t.Errorf("DiskFreeMB(%q) = %d, want nil", p, *got)
		}
	}
}

func TestPickMounts(t *testing.T) {
	part := func(dev, mnt, fs string) disk.PartitionStat {
		return disk.PartitionStat{Device: dev, Mountpoint: mnt, Fstype: fs}
	}
	cases := []struct {
		name string
		in   []disk.PartitionStat
		want []string
	}{
		{"linux root and data", []disk.PartitionStat{part("/dev/sda1", "/", "ext4"), part("/dev/sdb1", "/srv", "xfs")}, []string{"/", "/srv"}},
		{"pseudo filesystems skipped", []disk.PartitionStat{
			part("tmpfs", "/tmp", "tmpfs"), part("proc", "/proc", "proc"), part("overlay", "/", "overlay"),
			part("/dev/loop3", "/snap/core/1", "squashfs"), part("cgroup2", "/sys/fs/cgroup", "cgroup2"),
			part("/dev/sda1", "/data", "ext4")}, []string{"/data"}},
		{"network and fuse skipped", []disk.PartitionStat{
			part("nas:/export", "/mnt/nas", "nfs4"), part("//srv/share", "/mnt/smb", "cifs"),
			part("user@host:", "/mnt/ssh", "fuse.sshfs"), part("/dev/sdc1", "/mnt/win", "fuseblk")}, []string{"/mnt/win"}},
		{"dedupe by device keeps the shortest path", []disk.PartitionStat{
			part("/dev/vda", "/etc/hosts", "ext4"), part("/dev/vda", "/", "ext4"), part("/dev/vda", "/work", "ext4")}, []string{"/"}},
		{"btrfs subvolumes share a device", []disk.PartitionStat{
			part("/dev/nvme0n1p2", "/home", "btrfs"), part("/dev/nvme0n1p2", "/", "btrfs")}, []string{"/"}},
		{"macOS system volumes", []disk.PartitionStat{
			part("/dev/disk3s1s1", "/", "apfs"), part("/dev/disk3s6", "/System/Volumes/VM", "apfs"),
			part("/dev/disk3s5", "/System/Volumes/Data", "apfs"), part("devfs", "/dev", "devfs"),
			part("map auto_home", "/System/Volumes/Data/home", "autofs")}, []string{"/"}},
		{"windows drives", []disk.PartitionStat{part("C:", "C:", "NTFS"), part("D:", "D:", "ReFS")}, []string{"C:", "D:"}},
		{"empty", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, m := range pickMounts(tc.in) {
				got = append(got, m.path)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("pickMounts = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCollector_StaticCached(t *testing.T) {
	c := NewCollector(testLogger(t))
	c.Host(context.Background())
	c.mu.Lock()
	first := c.staticAt
	c.mu.Unlock()
	c.Host(context.Background())
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.staticAt != first {
		t.Error("static facts re-read within their TTL")
	}
	if c.static.hostname == "" || c.static.cores < 1 {
		t.Errorf("static facts not cached: %+v", c.static)
	}
}

func BenchmarkHost(b *testing.B) {
	c := NewCollector(nil)
	ctx := context.Background()
	c.Host(ctx) // the first call may wait for its short CPU sample
	b.ReportAllocs()
	for b.Loop() {
		c.Host(ctx)
	}
}

func BenchmarkDiskFreeMB(b *testing.B) {
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		DiskFreeMB(dir)
	}
}
