package main

import (
	"strings"
	"testing"
	"time"
)

const phaseSample = `pkg: github.com/corrosion/corrosion/worldsrv/bench
BenchmarkWorldTick/baseline-2   1  12000000 ns/op  0.01 p50-ms  0.05 p99-ms  0.001 phase:info:p50-ms  0.002 phase:info:p99-ms  0.004 phase:inputs:p50-ms  0.02 phase:inputs:p99-ms
BenchmarkWorldTick/corrosion-2  1  60000000 ns/op  4 p50-ms  8 p99-ms  2 phase:info:p50-ms  4.5 phase:info:p99-ms  1.5 phase:inputs:p50-ms  3 phase:inputs:p99-ms
`

// Per-phase metrics leave the main table and get a table of their own:
// one row per phase in the tick's order (go test reports them sorted by
// name), a column per sub-benchmark and unit.
func TestRender_PhaseTable(t *testing.T) {
	rs := parse(strings.NewReader(phaseSample))
	if len(rs) != 2 {
		t.Fatalf("parsed %+v", rs)
	}
	out := render(rs, "- machine\n", time.Unix(0, 0))
	for _, want := range []string{
		"| `WorldTick/corrosion` | 6e+07 ns/op, 4 p50-ms, 8 p99-ms | 400.00× p50-ms, 160.00× p99-ms |",
		"Per phase, `WorldTick`:",
		"| phase | baseline p50-ms | baseline p99-ms | corrosion p50-ms | corrosion p99-ms |",
		"| inputs | 0.004 | 0.020 | 1.500 | 3.000 |\n| info | 0.001 | 0.002 | 2.000 | 4.500 |", // tick order
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "phase:inputs") {
		t.Errorf("a phase metric is left in the main table:\n%s", out)
	}
}

func TestPhaseUnit(t *testing.T) {
	for unit, want := range map[string]bool{"phase:inputs:p99-ms": true, "phase::p99-ms": false,
		"phase:inputs": false, "phase:inputs:": false, "p99-ms": false} {
		if _, _, ok := phaseUnit(unit); ok != want {
			t.Errorf("phaseUnit(%q) ok = %v, want %v", unit, ok, want)
		}
	}
}
