package fleetui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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

// Bench servers: issue 19's 1,000 instances on 200 hosts.
const (
	serversBenchHosts   = 200
	serversBenchPerHost = 5
)

// jsonServers is the baseline: the same store reads as the Servers page
// (the hosts and every instance), sent as JSON instead of rendered.
type jsonServers struct{ st fleetui.Store }

func (j jsonServers) Routes() []httpx.Route {
	return []httpx.Route{{Pattern: "GET /bench/servers.json", Need: httpx.View, Handler: func(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
		hosts, err := j.st.Hosts(r.Context(), store.HostFilter{Now: time.Now()})
		if err != nil {
			return err
		}
		insts, err := j.st.InstancesOf(r.Context(), nil)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json")
		return json.NewEncoder(w).Encode(struct {
			Hosts     []store.Host
			Instances []store.Instance
		}{hosts, insts})
	}}}
}

// BenchmarkServersPage: GET /servers of 1,000 instances on 200 hosts in
// Postgres, rendered server-side (and with a search and a state filter),
// vs. the same reads served as JSON, over HTTP through the same server
// (session, route, metrics). Goal (issue 19): server-side p50 ≤ 30 ms.
func BenchmarkServersPage(b *testing.B) {
	p := paneltest.Start(b, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		h, err := fleetui.NewLive(livestate.Config{}, d.NC, d.Store, d.Logger, nil)
		if err != nil {
			b.Fatal(err)
		}
		d.Go(func(ctx context.Context) { _ = h.Run(ctx) })
		return []httpx.Feature{fleetui.New(fleetui.Deps{Store: d.Store, Agents: d.Agents, Live: h, Logger: d.Logger}), jsonServers{st: d.Store}}
	}})
	seedServers(b, p.Store)
	pw := p.AddUser(b, "ada", auth.RoleAdmin)
	c := p.Client(b, "ada", pw)
	b.Run("baseline", func(b *testing.B) { fetchTimes(b, c.HTTP(), p.URL+"/bench/servers.json") })
	b.Run("corrosion", func(b *testing.B) { fetchTimes(b, c.HTTP(), p.URL+"/servers") })
	b.Run("corrosion-filtered", func(b *testing.B) { fetchTimes(b, c.HTTP(), p.URL+"/servers?q=host+1&state=running") })
}

// seedServers writes the bench fleet with one heartbeat per host, as
// ingest would.
func seedServers(b *testing.B, st *store.Store) {
	ctx, at := context.Background(), time.Now()
	batch := store.Batch{Messages: map[string]int64{}}
	states := []wire.State{wire.StateRunning, wire.StateRunning, wire.StateRunning, wire.StateStopped, wire.StateCrashed}
	games := []string{"rust", "valheim", "minecraft", "worldsrv", "ether"}
	for i := range serversBenchHosts {
		l := fmt.Sprintf("host-%03d", i)
		if err := st.CreateLicense(ctx, l, fmt.Sprintf("Host %d", i)); err != nil {
			b.Fatal(err)
		}
		hb := wire.Heartbeat{Schema: wire.Schema, Timestamp: at, Agent: wire.AgentInfo{Version: "1.4.2", OS: "linux", Arch: "amd64"},
			Host: wire.HostInfo{Hostname: l + ".example.net"}}
		for k := range serversBenchPerHost {
			port := 28000 + 10*k
			hb.Instances = append(hb.Instances, wire.InstanceReport{ID: fmt.Sprintf("srv%d", k), Label: fmt.Sprintf("Server %d.%d", i, k),
				Game: games[k], State: states[k], UptimeSeconds: 3600, Build: "16843210", AvailableBuild: fmt.Sprintf("1684321%d", i%2),
				Ports: []wire.BoundPortInfo{{Name: "game", Protocol: "udp", Port: port}, {Name: "query", Protocol: "udp", Port: port + 2},
					{Name: "rcon", Protocol: "tcp", Port: port + 1}}})
		}
		raw, _ := json.Marshal(hb)
		batch.Heartbeats = append(batch.Heartbeats, store.HeartbeatRow{License: l, Received: at, Heartbeat: hb, JSON: raw})
		batch.Messages[l]++
	}
	if _, err := st.ApplyBatch(ctx, batch); err != nil {
		b.Fatal(err)
	}
	// Every running server was probed after its start (the Players and
	// Reachable columns).
	for _, r := range batch.Heartbeats {
		for _, in := range r.Heartbeat.Instances {
			if in.State != wire.StateRunning {
				continue
			}
			players := len(in.ID) * 7
			rep := wire.ProbeReport{Timestamp: at, Direction: wire.DirectionInbound, Results: []wire.ProbeResult{
				{Name: "query", Host: "203.0.113.7", Port: in.Ports[1].Port, OK: true, Protocol: "udp", Check: "a2s_info",
					Players: &players, MaxPlayers: new(100)}}}
			if err := st.SaveProbe(ctx, r.License, in.ID, store.Probe{At: at, Verdict: "reachable", Players: &players, Report: rep}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
