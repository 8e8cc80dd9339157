package fleetui

import (
	"testing"
	"time"

	"github.com/corrosion/corrosion/panel/store"
)

func TestCharts(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 1, 0, 0, 0, time.UTC)
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	samples := []store.Sample{
		{At: t0, CPUPercent: f(10), MemUsedMB: i(1024), MemTotalMB: i(4096), DiskFreeMB: i(750), DiskTotalMB: i(1000)},
		{At: t0.Add(10 * time.Second), CPUPercent: nil, MemUsedMB: i(2048), MemTotalMB: i(4096)}, // CPU not measured
		{At: t0.Add(20 * time.Second), CPUPercent: f(30), MemUsedMB: i(3072), MemTotalMB: i(4096), DiskFreeMB: i(500), DiskTotalMB: i(1000)},
	}
	cs := charts(samples)
	if len(cs) != 3 || cs[0].ID != "cpu" || cs[1].ID != "mem" || cs[2].ID != "disk" {
		t.Fatalf("charts %+v", cs)
	}
	check := func(name string, got []float64, want ...float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", name, got, want)
		}
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("%s: %v, want %v", name, got, want)
			}
		}
	}
	check("cpu (the unmeasured sample skipped)", cs[0].Values, 10, 30)
	check("memory %", cs[1].Values, 25, 50, 75)
	check("disk used %", cs[2].Values, 25, 50)
	if cs[0].Latest != "30 %" || cs[1].Latest != "3.0 / 4.0 GiB" || !cs[2].To.Equal(t0.Add(20*time.Second)) || !cs[0].From.Equal(t0) {
		t.Fatalf("latest/axis: %q %q %v %v", cs[0].Latest, cs[1].Latest, cs[0].From, cs[2].To)
	}
	if none := charts(nil); len(none) != 3 || len(none[0].Values) != 0 || none[0].Latest != "—" {
		t.Fatalf("no samples: %+v", none)
	}
}

func TestDownsample_KeepsEachBucketsPeak(t *testing.T) {
	vals := make([]float64, 1000)
	vals[517] = 99 // a spike must survive
	got := downsample(vals, 100)
	if len(got) != 100 || got[51] != 99 {
		t.Fatalf("len %d, bucket 51 = %v", len(got), got[51])
	}
	if short := downsample([]float64{1, 2}, 100); len(short) != 2 {
		t.Fatalf("short series changed: %v", short)
	}
}
