package reach_test

import (
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/netprobe/netprobetest"
	"github.com/corrosion/corrosion/panel/reach"
)

func TestProbeTCPFiltered(t *testing.T) {
	port := netprobetest.FullBacklogPort(t)
	p := newProber(t, reach.Options{Timeout: 300 * time.Millisecond})
	start := time.Now()
	rep, err := p.Probe(t.Context(), reach.Request{InstanceID: "f", Address: "127.0.0.1",
		Ports: []reach.Port{{Name: "game", Protocol: reach.TCP, Port: port}}})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.OK || r.Check != reach.CheckTCPConnect || r.Error != "timeout after 300ms" || r.LatencyMS != nil {
		t.Fatalf("filtered port: %+v, want not ok, timeout after 300ms", r)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("a 300ms probe took %v", d)
	}
}
