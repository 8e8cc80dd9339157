package telemetry

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/internal/netprobe/netprobetest"
)

func TestProber_TimeoutRespected(t *testing.T) {
	port := netprobetest.FullBacklogPort(t)
	const timeout = 250 * time.Millisecond
	targets := make([]config.Probe, 8)
	for i := range targets {
		targets[i] = config.Probe{Name: "stuck" + strconv.Itoa(i), Host: "127.0.0.1", Port: port}
	}
	p := NewProber(targets, timeout)
	start := time.Now()
	rep := p.Probe(context.Background())
	elapsed := time.Since(start)
	for _, r := range rep.Results {
		if r.OK || r.LatencyMS != nil || r.Error != "timeout after 250ms" {
			t.Errorf("result %+v, want a timeout", r)
		}
	}
	// Eight targets probed at once take about one timeout, not eight.
	if elapsed < timeout || elapsed > 6*timeout {
		t.Errorf("probe took %v with a %v timeout per target", elapsed, timeout)
	}
}
