package fleetui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/fleetui"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/store"
)

// Bench fleet: hosts with four instances each and a sparkline's worth of
// history.
const (
	benchHosts   = 1000
	benchSamples = fleetui.SparkSamples
)

// jsonFleet is the baseline: the same store read as the fleet page, sent
// as JSON (encoding/json of what the page reads) instead of rendered.
type jsonFleet struct{ st fleetui.Store }

func (j jsonFleet) Routes() []httpx.Route {
	return []httpx.Route{{Pattern: "GET /bench/fleet.json", Need: httpx.View, Handler: func(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
		hosts, err := j.st.Hosts(r.Context(), store.HostFilter{Spark: fleetui.SparkSamples, Now: time.Now()})
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json")
		return json.NewEncoder(w).Encode(hosts)
	}}}
}

// BenchmarkFleetPage: GET / of a 1,000-host fleet (each with four
// instances and 30 history samples in Postgres), rendered server-side, vs.
// the same read served as JSON, both over HTTP through the same server
// (session, route, metrics). `corrosion` is a panel whose live model holds
// the sparklines (Warm, or any fleet page opened before); `corrosion-cold`
// a replica without one, reading them from the store as the baseline does.
func BenchmarkFleetPage(b *testing.B) {
	var hub *fleetui.Live // the live panel's current hub
	withLive := true      // false while the cold replica starts
	p := paneltest.Start(b, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		deps := fleetui.Deps{Store: d.Store, Agents: d.Agents, Logger: d.Logger}
		if withLive {
			h, err := fleetui.NewLive(livestate.Config{}, d.NC, d.Store, d.Logger, nil)
			if err != nil {
				b.Fatal(err)
			}
			d.Go(func(ctx context.Context) { _ = h.Run(ctx) })
			hub, deps.Live = h, h
		}
		return []httpx.Feature{fleetui.New(deps), jsonFleet{st: d.Store}}
	}})
	withLive = false
	cold := p.Replica(b)
	withLive = true
	seedFleet(b, p.Store)
	p.Restart(b) // as a panel started on this fleet: its hub's start seeds the model
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := hub.Warm(ctx); err != nil {
		b.Fatal(err)
	}
	pw := p.AddUser(b, "ada", auth.RoleAdmin)
	c, cc := p.Client(b, "ada", pw), cold.Client(b, "ada", pw)
	b.Run("baseline", func(b *testing.B) { fetchTimes(b, c.HTTP(), p.URL+"/bench/fleet.json") })
	b.Run("corrosion", func(b *testing.B) { fetchTimes(b, c.HTTP(), p.URL+"/") })
	b.Run("corrosion-cold", func(b *testing.B) { fetchTimes(b, cc.HTTP(), cold.URL+"/") })
}

func fetchTimes(b *testing.B, hc *http.Client, url string) {
	samples := make([]time.Duration, 0, b.N)
	var size int64
	for range b.N {
		t0 := time.Now()
		resp, err := hc.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: %d", url, resp.StatusCode)
		}
		samples = append(samples, time.Since(t0))
		size = n
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	pct := func(q float64) float64 { return float64(samples[int(q*float64(len(samples)-1))]) / 1e6 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(size)/1024, "KiB")
}

// seedFleet writes the bench fleet through the store's batched writes, as
// ingest would: benchSamples rounds of heartbeats 10 s apart.
func seedFleet(b *testing.B, st *store.Store) {
	ctx := context.Background()
	for i := range benchHosts {
		if err := st.CreateLicense(ctx, fmt.Sprintf("host-%04d", i), fmt.Sprintf("Host %d", i)); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now().Add(-time.Duration(benchSamples) * 10 * time.Second)
	for round := range benchSamples {
		at := start.Add(time.Duration(round) * 10 * time.Second)
		batch := store.Batch{Messages: map[string]int64{}}
		for i := range benchHosts {
			l := fmt.Sprintf("host-%04d", i)
			hb := benchHeartbeat(l, i, round, at)
			raw, _ := json.Marshal(hb)
			batch.Heartbeats = append(batch.Heartbeats, store.HeartbeatRow{License: l, Received: at, Heartbeat: hb, JSON: raw})
			batch.Messages[l]++
		}
		if _, err := st.ApplyBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
}

func benchHeartbeat(license string, i, round int, at time.Time) wire.Heartbeat {
	cpu := float64((i*7+round*13)%100) + 0.5
	cores := 8
	memTotal, memUsed := uint64(32768), uint64(8192+(i*97+round*31)%16384)
	states := []wire.State{wire.StateRunning, wire.StateRunning, wire.StateStopped, wire.StateCrashed}
	hb := wire.Heartbeat{Schema: wire.Schema, Timestamp: at,
		Agent: wire.AgentInfo{Version: "1.4.2", Commit: "abcdef1", OS: "linux", Arch: "amd64", UptimeSeconds: 86400},
		Host: wire.HostInfo{Hostname: license + ".example.net", CPUPercent: &cpu, CPUCores: &cores, MemTotalMB: &memTotal,
			MemUsedMB: &memUsed, Disks: []wire.Disk{{Mount: "/", TotalMB: 512000, FreeMB: 200000}}}}
	for k, st := range states {
		hb.Instances = append(hb.Instances, wire.InstanceReport{ID: fmt.Sprintf("world%d", 10+k), Game: "worldsrv", State: st, UptimeSeconds: 3600})
	}
	return hb
}
