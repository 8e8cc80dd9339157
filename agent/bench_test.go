//go:build unix

package agent_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/shirou/gopsutil/v4/mem"

	"github.com/corrosion/corrosion/agent"
	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/rcon"
	"github.com/corrosion/corrosion/agent/rcon/rcontest"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// inProcessAgent runs an Agent in this process on h's config.
func inProcessAgent(b *testing.B, h *harness) *agent.Agent {
	b.Helper()
	cfg, err := config.Load(h.cfgPath)
	if err != nil {
		b.Fatal(err)
	}
	a, err := agent.New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Run(ctx) }()
	b.Cleanup(func() { cancel(); <-done })
	poll.Until(b, 10*time.Second, func() error {
		_, err := h.request(wire.HostCmdSubject(license), `{"func":"ping"}`)
		return err
	})
	return a
}

// roundTrips measures b.N request-reply round trips and reports p50/p99.
func roundTrips(b *testing.B, nc *nats.Conn, subject string, body []byte) {
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		m, err := nc.Request(subject, body, 5*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(t0))
		if len(m.Data) == 0 {
			b.Fatal("empty reply")
		}
	}
	b.StopTimer()
	reportPercentiles(b, samples)
}

func reportPercentiles(b *testing.B, samples []time.Duration) {
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	pct := func(p float64) float64 {
		return float64(samples[int(p*float64(len(samples)-1))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(pct(0.50), "p50-us")
	b.ReportMetric(pct(0.99), "p99-us")
}

// BenchmarkStatusRoundTrip: the status command through the agent vs. a raw
// NATS request-reply echo on the same server.
func BenchmarkStatusRoundTrip(b *testing.B) {
	h := prepareHarness(b, 60, oneGame, "")
	inProcessAgent(b, h)
	echo := h.ns.Connect(b)
	if _, err := echo.Subscribe("bench.echo", func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		b.Fatal(err)
	}
	_ = echo.Flush()
	status := []byte(`{"func":"status"}`)
	b.Run("baseline", func(b *testing.B) { roundTrips(b, h.nc, "bench.echo", status) })
	b.Run("corrosion", func(b *testing.B) { roundTrips(b, h.nc, wire.CmdSubject(license, "game1"), status) })
}

// BenchmarkRCONThroughAgent: an RCON command through NATS → agent →
// Source RCON test server → back, vs. the same command sent directly with
// an RCON client to the same server.
func BenchmarkRCONThroughAgent(b *testing.B) {
	srv := rcontest.NewSource(b, rcontest.SourceOptions{Password: rconPassword,
		Handler: func(cmd string) string { return "players: 0 (" + cmd + ")" }})
	h := prepareHarness(b, 60, rconInstance("conan1", "conan", "", srv.Port(), rconPassword), "")
	inProcessAgent(b, h)
	h.mustOK(h.cmd("conan1", `{"func":"start","wait":true}`))
	direct, err := rcon.New(rcon.Config{Kind: rcon.KindSource, Port: srv.Port(), Password: rconPassword})
	if err != nil {
		b.Fatal(err)
	}
	defer direct.Close()
	ctx := context.Background()
	b.Run("baseline", func(b *testing.B) {
		samples := make([]time.Duration, 0, b.N)
		for range b.N {
			t0 := time.Now()
			if _, err := direct.Exec(ctx, "status"); err != nil {
				b.Fatal(err)
			}
			samples = append(samples, time.Since(t0))
		}
		reportPercentiles(b, samples)
	})
	b.Run("corrosion", func(b *testing.B) {
		roundTrips(b, h.nc, wire.CmdSubject(license, "conan1"), []byte(`{"func":"rcon","command":"status"}`))
	})
	// Context: what one-shot RCON tools do per command (dial, auth, exec).
	b.Run("direct-oneshot", func(b *testing.B) {
		samples := make([]time.Duration, 0, b.N)
		for range b.N {
			t0 := time.Now()
			c, err := rcon.New(rcon.Config{Kind: rcon.KindSource, Port: srv.Port(), Password: rconPassword})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Exec(ctx, "status"); err != nil {
				b.Fatal(err)
			}
			_ = c.Close()
			samples = append(samples, time.Since(t0))
		}
		reportPercentiles(b, samples)
	})
}

// tenGames is ten managed instances of the fake game, started at once.
func tenGames() string {
	var sb strings.Builder
	for i := range 10 {
		fmt.Fprintf(&sb, "[[instance]]\nid = \"game%d\"\ngame = \"generic\"\nroot = \"{{root}}\"\nexec = \"{{game}}\"\nautostart = true\n\n", i)
	}
	return sb.String()
}

// BenchmarkHeartbeatAssembly: assembling the heartbeat for ten running
// instances vs. one bare gopsutil memory read.
func BenchmarkHeartbeatAssembly(b *testing.B) {
	h := prepareHarness(b, 3600, tenGames(), "")
	a := inProcessAgent(b, h)
	for i := range 10 {
		h.waitState(fmt.Sprintf("game%d", i), "running")
	}
	ctx := context.Background()
	b.Run("baseline", func(b *testing.B) {
		for range b.N {
			if _, err := mem.VirtualMemory(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("corrosion", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if hb := a.Heartbeat(ctx); len(hb.Instances) != 10 {
				b.Fatal("instances missing")
			}
		}
	})
}

// BenchmarkIdleRSS: resident memory of the agent binary idling with ten
// running instances, vs. a bare NATS client process (tools/natsidle).
func BenchmarkIdleRSS(b *testing.B) {
	h := prepareHarness(b, 60, tenGames(), "")
	b.Run("baseline", func(b *testing.B) {
		scenario(b, "rss/baseline", func() map[string]float64 {
			cmd := exec.Command(testbin.Build(b, "./tools/natsidle"), h.ns.URL())
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			return map[string]float64{"rss-MB": settledRSS(b, cmd.Process.Pid)}
		})
	})
	b.Run("corrosion", func(b *testing.B) {
		scenario(b, "rss/corrosion", func() map[string]float64 {
			h.startAgent()
			for i := range 10 {
				h.waitState(fmt.Sprintf("game%d", i), "running")
			}
			return map[string]float64{"rss-MB": settledRSS(b, h.agent.Process.Pid)}
		})
	})
}

// settledRSS waits for the process to idle, then reads its VmRSS in MB.
func settledRSS(b *testing.B, pid int) float64 {
	time.Sleep(3 * time.Second)
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(data)
	if m == nil {
		b.Fatal("no VmRSS")
	}
	kb, _ := strconv.Atoi(string(m[1]))
	return float64(kb) / 1024
}

const floodLines = 3_000_000

var floodRE = regexp.MustCompile(`flood lines=(\d+) seconds=([0-9.]+)`)

// BenchmarkConsoleThroughput: a child printing as fast as it can under the
// agent (stdout to the agent's log file, lines to a NATS subscriber) vs.
// the same child writing to /dev/null. Three agent settings: the default
// console limit (2000 lines per 100 ms), 10,000 per 100 ms, and no limit.
func BenchmarkConsoleThroughput(b *testing.B) {
	b.Run("baseline", func(b *testing.B) {
		scenario(b, "console/baseline", func() map[string]float64 {
			return median(floodRuns, func() map[string]float64 {
				game := testbin.Build(b, "./tools/fakegame")
				out, err := exec.Command(game, "-flood", strconv.Itoa(floodLines), "-flood-devnull").CombinedOutput()
				if err != nil {
					b.Fatal(err)
				}
				return map[string]float64{"child-lines/s": childRate(b, string(out))}
			})
		})
	})
	for _, v := range []struct{ name, limit string }{
		{"corrosion", "2000"}, {"corrosion-limit-10k", "10000"}, {"corrosion-unthrottled", "100000000"},
	} {
		b.Run(v.name, func(b *testing.B) {
			scenario(b, "console/"+v.name, func() map[string]float64 {
				return median(floodRuns, func() map[string]float64 { return floodThroughAgent(b, v.limit) })
			})
		})
	}
}

// floodThroughAgent runs the flooding child under an agent with the given
// console_line_limit and measures the child's speed and the lines that
// reach a NATS subscriber.
func floodThroughAgent(b *testing.B, limit string) map[string]float64 {
	report := filepath.Join(b.TempDir(), "flood-report")
	h := prepareHarness(b, 60, fmt.Sprintf(`
[[instance]]
id = "flood"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
args = ["-flood", "%d", "-flood-report", %q]
`, floodLines, report), "console_line_limit = "+limit)
	_ = h.consoleSub.Unsubscribe() // the harness decodes every line: too slow here
	var got, last atomic.Int64
	stdoutKey := []byte(`"stream":"stdout"`)
	sub, err := h.nc.Subscribe(wire.ConsoleSubject(license, "flood"), func(m *nats.Msg) {
		// Count without decoding: this subscriber shares the two cores
		// with the child being measured.
		got.Add(int64(bytes.Count(m.Data, stdoutKey)))
		last.Store(time.Now().UnixNano())
	})
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Unsubscribe()
	_ = sub.SetPendingLimits(-1, -1)
	h.startAgent()
	start := time.Now()
	h.mustOK(h.cmd("flood", `{"func":"start"}`))
	h.waitState("flood", "crashed") // the flood ends on its own, after the agent drained it
	data, err := os.ReadFile(report)
	if err != nil {
		b.Fatal(err)
	}
	el := time.Duration(last.Load() - start.UnixNano())
	return map[string]float64{"child-lines/s": childRate(b, string(data)),
		"delivered-lines/s": float64(got.Load()) / el.Seconds()}
}

// floodRuns: a flood lasts a fraction of a second, so each console figure
// is the median of this many runs.
const floodRuns = 3

// median runs fn n times and returns the per-metric median.
func median(n int, fn func() map[string]float64) map[string]float64 {
	all := map[string][]float64{}
	for range n {
		for k, v := range fn() {
			all[k] = append(all[k], v)
		}
	}
	out := make(map[string]float64, len(all))
	for k, vs := range all {
		sort.Float64s(vs)
		out[k] = vs[len(vs)/2]
	}
	return out
}

// scenarios caches the figures of whole-scenario measurements: the
// benchmark framework may call a sub-benchmark again with a larger b.N, and
// a scenario (start an agent, flood, ...) must run only once.
var scenarios sync.Map

// scenario runs fn once per name and reports its metrics on every call.
func scenario(b *testing.B, name string, fn func() map[string]float64) {
	v, ok := scenarios.Load(name)
	if !ok {
		v, _ = scenarios.LoadOrStore(name, fn())
	}
	for unit, val := range v.(map[string]float64) {
		b.ReportMetric(val, unit)
	}
}

func childRate(b *testing.B, out string) float64 {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if m := floodRE.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.Atoi(m[1])
			s, _ := strconv.ParseFloat(m[2], 64)
			return float64(n) / s
		}
	}
	b.Fatalf("no flood report in %q", out)
	return 0
}
