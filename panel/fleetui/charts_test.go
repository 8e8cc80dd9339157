package fleetui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
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

// A day of heartbeats is drawn with a y axis and says what its points are (the peak of
// a bucket, not a heartbeat), and its latest value carries its time: the host card's
// CPU (the last heartbeat's) and the chart's could disagree with nothing saying why.
func TestCharts_SayTheirWindowAndHaveAYAxis(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	var samples []store.Sample
	for k := range 24 * 60 { // one a minute for a day
		v := float64(k % 100)
		samples = append(samples, store.Sample{At: t0.Add(time.Duration(k) * time.Minute), CPUPercent: &v})
	}
	cpu := charts(samples)[0]
	if len(cpu.Values) != ChartPoints || cpu.Bucket < 5*time.Minute || cpu.Bucket > 7*time.Minute {
		t.Fatalf("%d points, bucket %v; want %d points of about 6 min", len(cpu.Values), cpu.Bucket, ChartPoints)
	}
	var b strings.Builder
	if err := ui.ChartCard(cpu).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{`class="yaxis`, "<span>100 %</span>", "<span>50 %</span>", "<span>0 %</span>", "each point the peak of 6 min", `datetime="2026-11-24T23:59:00Z"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the chart lacks %q:\n%s", want, html)
		}
	}
	if few := charts(samples[:3])[0]; few.Bucket != 0 || few.ChartWindow() != "one point per heartbeat" {
		t.Errorf("three samples: bucket %v, %q", few.Bucket, few.ChartWindow())
	}
}
