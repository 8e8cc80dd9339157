package bench

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/bot/worldtest"
	"github.com/corrosion/corrosion/worldsrv/engine"
	"github.com/corrosion/corrosion/worldsrv/httpapi"
)

// status reads w's /status.
func status(w worldtest.World) (httpapi.Status, error) {
	var s httpapi.Status
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(w.HTTP + "/status")
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("/status: %s", resp.Status)
	}
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

// mustStatus is status or the benchmark's end.
func mustStatus(b *testing.B, w worldtest.World) httpapi.Status {
	b.Helper()
	s, err := status(w)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// waitTicks waits until w has run the tick count at least to.
func waitTicks(b *testing.B, w worldtest.World, to uint64, within time.Duration) httpapi.Status {
	b.Helper()
	var s httpapi.Status
	poll.Until(b, within, func() error {
		var err error
		if s, err = status(w); err != nil {
			return err
		}
		if s.Tick.Count < to {
			return fmt.Errorf("tick %d, waiting for %d", s.Tick.Count, to)
		}
		return nil
	})
	return s
}

// rssMB is the process's VmRSS in MB (2^20 bytes).
func rssMB(pid int) (float64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				return 0, fmt.Errorf("VmRSS %q: %w", v, err)
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// reportTick reports a /status tick window: whole p50/p99/max and each
// phase's p50/p99 (units phase:<name>:p50-ms, which benchreport renders
// as a table of phases).
func reportTick(b *testing.B, t httpapi.TickStatus, window int) {
	b.ReportMetric(t.P50MS, "p50-ms")
	b.ReportMetric(t.P99MS, "p99-ms")
	b.ReportMetric(t.MaxMS, "max-ms")
	b.ReportMetric(float64(window), "ticks")
	for _, name := range engine.PhaseNames() {
		ph := t.Phases[name]
		b.ReportMetric(ph.P50MS, "phase:"+name+":p50-ms")
		b.ReportMetric(ph.P99MS, "phase:"+name+":p99-ms")
	}
}
