package telemetry

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
)

// openPort is a loopback listener that accepts and closes connections.
func openPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// closedPort is a loopback port nothing listens on (it was just released).
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

func TestProber_Probe(t *testing.T) {
	open, closed := openPort(t), closedPort(t)
	p := NewProber([]config.Probe{
		{Name: "open", Host: "127.0.0.1", Port: open},
		{Name: "closed", Host: "127.0.0.1", Port: closed},
		{Name: "by-name", Host: "localhost", Port: open},
	}, 0)
	if p.Last() != nil {
		t.Fatal("Last before the first probe is not nil")
	}
	rep := p.Probe(context.Background())
	if len(rep.Results) != 3 || rep.Timestamp.IsZero() {
		t.Fatalf("report %+v", rep)
	}
	cases := []struct {
		name    string
		ok      bool
		errText string
	}{
		{"open", true, ""},
		{"closed", false, "connection refused"},
		{"by-name", true, ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rep.Results[i]
			if r.Name != tc.name || r.OK != tc.ok || r.Host == "" || r.Port == 0 {
				t.Fatalf("result %+v", r)
			}
			if tc.ok && (r.LatencyMS == nil || *r.LatencyMS < 0 || r.Error != "") {
				t.Errorf("ok result: latency %v, error %q", r.LatencyMS, r.Error)
			}
			if !tc.ok && (r.LatencyMS != nil || !strings.Contains(r.Error, tc.errText)) {
				t.Errorf("failed result: latency %v, error %q, want %q", r.LatencyMS, r.Error, tc.errText)
			}
		})
	}
	last := p.Last()
	if last == nil || !last.Timestamp.Equal(rep.Timestamp) || len(last.Results) != 3 {
		t.Fatalf("Last = %+v, want the report", last)
	}
	last.Results[0].OK = false
	*last.Results[0].LatencyMS = -1
	if again := p.Last(); !again.Results[0].OK || *again.Results[0].LatencyMS < 0 {
		t.Error("Last returns shared memory: a caller's change leaked into the cache")
	}
}

func TestProber_NoTargets(t *testing.T) {
	rep := NewProber(nil, time.Second).Probe(context.Background())
	if rep.Results == nil || len(rep.Results) != 0 {
		t.Errorf("results %#v, want empty non-nil (JSON [])", rep.Results)
	}
}

func TestProber_CancelledContext(t *testing.T) {
	p := NewProber([]config.Probe{{Name: "x", Host: "127.0.0.1", Port: openPort(t)}}, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := p.Probe(ctx).Results[0]
	if r.OK || r.Error != "canceled" {
		t.Errorf("result %+v, want canceled", r)
	}
}

func TestProber_DefaultTimeout(t *testing.T) {
	if p := NewProber(nil, 0); p.timeout != DefaultProbeTimeout {
		t.Errorf("timeout %v, want %v", p.timeout, DefaultProbeTimeout)
	}
}
