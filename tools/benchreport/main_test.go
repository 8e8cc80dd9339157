package main

import (
	"strings"
	"testing"
	"time"
)

const sample = `goos: linux
pkg: github.com/corrosion/corrosion/agent
BenchmarkStatusRoundTrip/baseline-2         	   10000	    100000 ns/op	        80.0 p50-us	       200.0 p99-us
BenchmarkStatusRoundTrip/corrosion-2        	   10000	    120000 ns/op	       100.0 p50-us	       300.0 p99-us
BenchmarkConsoleThroughput/baseline-2       	       1	 1000 ns/op	   1000000 lines/s
BenchmarkConsoleThroughput/corrosion-2      	       1	 1000 ns/op	    950000 lines/s
BenchmarkConsoleThroughput/corrosion-fast-2 	       1	 1000 ns/op	   1000000 lines/s
PASS
`

func TestParseAndRender(t *testing.T) {
	rs := parse(strings.NewReader(sample))
	if len(rs) != 5 || rs[0].name != "BenchmarkStatusRoundTrip/baseline" || rs[0].pkg != "github.com/corrosion/corrosion/agent" {
		t.Fatalf("parsed %+v", rs)
	}
	if v, _ := rs[1].get("p50-us"); v != 100 {
		t.Fatalf("p50 %v", v)
	}
	out := render(rs, "- machine\n", time.Unix(0, 0))
	for _, want := range []string{"1.25× p50-us", "1.50× p99-us", "95% of baseline lines/s", "100% of baseline lines/s",
		"≤ 1.5×", "- `ConsoleThroughput`: "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestParseLine_RejectsNoise(t *testing.T) {
	for _, l := range []string{"ok  	pkg 1.2s", "BenchmarkX", "BenchmarkX-2 abc 1 ns/op", "--- FAIL: BenchmarkY"} {
		if _, ok := parseLine(l); ok {
			t.Errorf("parsed noise %q", l)
		}
	}
}
