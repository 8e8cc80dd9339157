package console_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/console"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/server"
)

// The fan-out scenario: one instance printing fanRate lines/s, published
// as the agent batches them (one message per fanBatchEvery), to fanStreams
// open SSE streams of the real panel for fanWindow.
const (
	fanRate       = 10_000
	fanStreams    = 20
	fanWindow     = 5 * time.Second
	fanBatchEvery = 10 * time.Millisecond
	fanLicense    = "bench-lic"
	fanInstance   = "loud"
)

var fanScenarios sync.Map // name → map[string]float64: each scenario runs once

// BenchmarkConsoleFanout: per-stream delivered lines/s and dropped counts
// of 20 browser streams following one instance printing 10,000 lines/s,
// and the panel's heap and RSS before and after; the baseline is a bare
// NATS subscriber decoding and counting the same lines.
func BenchmarkConsoleFanout(b *testing.B) {
	b.Run("baseline", func(b *testing.B) { fanScenario(b, "baseline", fanBaseline) })
	b.Run("corrosion", func(b *testing.B) { fanScenario(b, "corrosion", fanPanel) })
}

func fanScenario(b *testing.B, name string, fn func(b *testing.B) map[string]float64) {
	v, ok := fanScenarios.Load(name)
	if !ok {
		v, _ = fanScenarios.LoadOrStore(name, fn(b))
	}
	for unit, val := range v.(map[string]float64) {
		b.ReportMetric(val, unit)
	}
}

func fanBaseline(b *testing.B) map[string]float64 {
	ns := natstest.Start(b)
	nc := ns.Connect(b)
	var got atomic.Int64
	sub, err := nc.Subscribe(wire.ConsoleSubject(fanLicense, fanInstance), func(m *nats.Msg) {
		var cm wire.ConsoleMessage
		if json.Unmarshal(m.Data, &cm) == nil {
			got.Add(int64(len(cm.Lines)))
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Unsubscribe()
	_ = sub.SetPendingLimits(-1, -1)
	_ = nc.Flush()
	published, took := publishConsole(b, ns.Connect(b), fanWindow)
	waitCount(func() int64 { return got.Load() }, published)
	return map[string]float64{"published-lines/s": float64(published) / took.Seconds(),
		"delivered-lines/s": float64(got.Load()) / took.Seconds()}
}

func fanPanel(b *testing.B) map[string]float64 {
	var feat atomic.Pointer[console.Feature]
	p := paneltest.Start(b, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		f := console.New(server.TabDeps{NATS: d.NC, Logger: d.Logger})
		feat.Store(f)
		return []httpx.Feature{f}
	}})
	p.AddLicense(b, fanLicense)
	c := p.Client(b, "bench", p.AddUser(b, "bench", auth.RoleOperator, fanLicense))
	heap0, rss0 := memNow()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	streams := make([]*fanStream, fanStreams)
	for i := range streams {
		streams[i] = openFanStream(b, ctx, c, p.URL+"/hosts/"+fanLicense+"/instances/"+fanInstance+"/console/stream")
	}
	for feat.Load().Hub().Watchers() < fanStreams {
		time.Sleep(10 * time.Millisecond)
	}
	published, took := publishConsole(b, p.NC, fanWindow)
	for _, s := range streams {
		waitCount(func() int64 { return s.lines.Load() + s.dropped.Load() }, published)
	}
	cancel()
	for _, s := range streams {
		<-s.done
	}
	heap1, rss1 := memNow()
	m := map[string]float64{"published-lines/s": float64(published) / took.Seconds(),
		"heap-before-MB": heap0, "heap-after-MB": heap1, "rss-before-MB": rss0, "rss-after-MB": rss1}
	minRate, sum, dropped, minAccounted := -1.0, 0.0, int64(0), 100.0
	for _, s := range streams {
		rate := float64(s.lines.Load()) / took.Seconds()
		if minRate < 0 || rate < minRate {
			minRate = rate
		}
		sum += rate
		dropped += s.dropped.Load()
		minAccounted = min(minAccounted, 100*float64(s.lines.Load()+s.dropped.Load())/float64(published))
	}
	m["min-stream-lines/s"], m["mean-stream-lines/s"] = minRate, sum/fanStreams
	m["dropped-lines"], m["min-accounted-%"] = float64(dropped), minAccounted
	return m
}

// publishConsole publishes fanRate lines/s for window in agent-like
// batches and returns how many lines it published and how long it took.
func publishConsole(b *testing.B, nc *nats.Conn, window time.Duration) (int64, time.Duration) {
	subject := wire.ConsoleSubject(fanLicense, fanInstance)
	start := time.Now()
	var sent int64
	buf := make([]byte, 0, 64<<10)
	tick := time.NewTicker(fanBatchEvery)
	defer tick.Stop()
	for now := start; now.Sub(start) < window; now = <-tick.C {
		due := int64(now.Sub(start).Seconds()*fanRate) + fanRate/100
		if due <= sent {
			continue
		}
		m := wire.ConsoleMessage{Timestamp: now, InstanceID: fanInstance, Lines: make([]wire.ConsoleLine, 0, due-sent)}
		for ; sent < due; sent++ {
			m.Lines = append(m.Lines, wire.ConsoleLine{Stream: wire.StreamStdout,
				Text: "[" + strconv.FormatInt(sent, 10) + "] tick: 12 players online, 0 queued, 61.2 fps, entities 48213"})
		}
		buf = m.AppendJSON(buf[:0])
		if err := nc.Publish(subject, buf); err != nil {
			b.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		b.Fatal(err)
	}
	return sent, time.Since(start)
}

// waitCount waits (at most 5 s) until count reaches want.
func waitCount(count func() int64, want int64) {
	deadline := time.Now().Add(5 * time.Second)
	for count() < want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// fanStream counts the lines and the dropped counts a stream delivers,
// without decoding each line (it shares the cores with the panel).
type fanStream struct {
	lines, dropped atomic.Int64
	done           chan struct{}
}

var (
	stdoutLine = []byte(`["o","`)
	droppedKey = []byte(`"dropped":`)
)

func openFanStream(b *testing.B, ctx context.Context, c *paneltest.Client, url string) *fanStream {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	resp := c.Do(req)
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("open stream: status %d", resp.StatusCode)
	}
	s := &fanStream{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if !bytes.HasPrefix(line, []byte("data: ")) {
				continue
			}
			s.lines.Add(int64(bytes.Count(line, stdoutLine)))
			if i := bytes.LastIndex(line, droppedKey); i >= 0 {
				n, _ := strconv.ParseInt(strings.TrimRight(string(line[i+len(droppedKey):]), "}"), 10, 64)
				s.dropped.Add(n)
			}
		}
	}()
	return s
}

// memNow is this process's live heap and resident set, MB, after a GC
// that returns freed memory to the system.
func memNow() (heapMB, rssMB float64) {
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heapMB = float64(ms.HeapAlloc) / (1 << 20)
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return heapMB, 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:")), "%f", &kb)
			return heapMB, kb / 1024
		}
	}
	return heapMB, 0
}
