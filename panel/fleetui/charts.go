package fleetui

import (
	"time"

	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// series is one chart's values from samples: a value (in percent) or
// false when the sample did not measure it.
type series struct {
	id, title string
	value     func(store.Sample) (float64, bool)
	latest    func(store.Sample) string
}

var chartSeries = []series{
	{id: "cpu", title: "CPU", value: func(s store.Sample) (float64, bool) {
		if s.CPUPercent == nil {
			return 0, false
		}
		return *s.CPUPercent, true
	}, latest: func(s store.Sample) string { return percent(s.CPUPercent) }},
	{id: "mem", title: "Memory used", value: func(s store.Sample) (float64, bool) {
		return ratio(s.MemUsedMB, s.MemTotalMB)
	}, latest: func(s store.Sample) string { return usedOfTotal(s.MemUsedMB, s.MemTotalMB) }},
	{id: "disk", title: "Disk used", value: func(s store.Sample) (float64, bool) {
		return ratio(diskUsed(s.DiskTotalMB, s.DiskFreeMB), s.DiskTotalMB)
	}, latest: func(s store.Sample) string { return usedOfTotal(diskUsed(s.DiskTotalMB, s.DiskFreeMB), s.DiskTotalMB) }},
}

func ratio(used, total *int64) (float64, bool) {
	if used == nil || total == nil || *total <= 0 {
		return 0, false
	}
	return float64(*used) / float64(*total) * 100, true
}

// charts turns samples (oldest first) into the host page's charts, each
// at most ChartPoints points (the maximum of each bucket, so a spike is
// never averaged away).
func charts(samples []store.Sample) []ui.Chart {
	out := make([]ui.Chart, 0, len(chartSeries))
	for _, s := range chartSeries {
		c := ui.Chart{ID: s.id, Title: s.title, Unit: "%", Max: 100, Latest: "—"}
		var vals []float64
		for _, sm := range samples {
			if v, ok := s.value(sm); ok {
				vals = append(vals, v)
				if c.From.IsZero() {
					c.From = sm.At
				}
				c.To = sm.At
				c.Latest = s.latest(sm)
			}
		}
		c.Values = downsample(vals, ChartPoints)
		if len(vals) > ChartPoints {
			c.Bucket = (c.To.Sub(c.From) / ChartPoints).Round(time.Second)
		}
		out = append(out, c)
	}
	return out
}

func downsample(vals []float64, n int) []float64 {
	if len(vals) <= n {
		return vals
	}
	out := make([]float64, n)
	for i := range out {
		lo, hi := i*len(vals)/n, (i+1)*len(vals)/n
		m := vals[lo]
		for _, v := range vals[lo:hi] {
			m = max(m, v)
		}
		out[i] = m
	}
	return out
}

// chartsSince is when a host page's charts begin.
func chartsSince(now time.Time) time.Time { return now.Add(-ChartWindow) }
