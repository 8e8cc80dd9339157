package console_test

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/console"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/server"
)

// A browser that stops reading falls behind: its stream drops the oldest
// lines and says how many, and a browser beside it that keeps reading
// loses nothing.
func TestConsole_SlowBrowserIsToldWhatItMissed(t *testing.T) {
	var feat atomic.Pointer[console.Feature]
	p := paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		f := console.New(server.TabDeps{NATS: d.NC, Logger: d.Logger})
		feat.Store(f)
		return []httpx.Feature{f}
	}})
	p.AddLicense(t, licA)
	c := p.Client(t, "olga", p.AddUser(t, "olga", auth.RoleOperator, licA))
	url := p.URL + "/hosts/" + licA + "/instances/loud/console/stream"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slowReq, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	slow := c.Do(slowReq)
	defer slow.Body.Close()
	fastReq, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	fast := c.Do(fastReq)
	defer fast.Body.Close()
	var fastLines, fastDropped atomic.Int64
	go countStream(fast, &fastLines, &fastDropped)
	for feat.Load().Hub().Watchers() < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	const msgs, per = 30, 1000 // 30,000 lines of 1 KiB: far beyond socket buffers and the stream's bound
	pad := strings.Repeat("x", 1000)
	for i := range msgs {
		m := wire.ConsoleMessage{Timestamp: time.Now(), InstanceID: "loud"}
		for j := range per {
			m.Lines = append(m.Lines, wire.ConsoleLine{Stream: "stdout", Text: strconv.Itoa(i*per+j) + " " + pad})
		}
		if err := p.NC.Publish(wire.ConsoleSubject(licA, "loud"), m.AppendJSON(nil)); err != nil {
			t.Fatal(err)
		}
		poll.True(t, 10*time.Second, "the reading browser keeps up", func() bool { return fastLines.Load()+fastDropped.Load() >= int64((i+1)*per) })
	}
	var slowLines, slowDropped atomic.Int64
	go countStream(slow, &slowLines, &slowDropped)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && (slowLines.Load()+slowDropped.Load() < msgs*per || fastLines.Load() < msgs*per) {
		time.Sleep(20 * time.Millisecond)
	}
	if fastLines.Load() != msgs*per || fastDropped.Load() != 0 {
		t.Fatalf("the reading browser got %d lines and %d dropped of %d", fastLines.Load(), fastDropped.Load(), msgs*per)
	}
	if slowDropped.Load() == 0 || slowLines.Load()+slowDropped.Load() != msgs*per {
		t.Fatalf("the stalled browser got %d lines and was told of %d dropped; want drops, adding up to %d",
			slowLines.Load(), slowDropped.Load(), msgs*per)
	}
	if feat.Load().Hub().Dropped() != slowDropped.Load() {
		t.Fatalf("hub counts %d dropped, the stream said %d", feat.Load().Hub().Dropped(), slowDropped.Load())
	}
}

// countStream counts a stream's stdout lines and announced drops.
func countStream(resp *http.Response, lines, dropped *atomic.Int64) {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		b := sc.Bytes()
		if !bytes.HasPrefix(b, []byte("data: ")) {
			continue
		}
		lines.Add(int64(bytes.Count(b, []byte(`["o","`))))
		if i := bytes.LastIndex(b, []byte(`"dropped":`)); i >= 0 {
			n, _ := strconv.ParseInt(strings.TrimRight(string(b[i+len(`"dropped":`):]), "}"), 10, 64)
			dropped.Add(n)
		}
	}
}
