//go:build unix

package reachui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/agentc"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/reach"
	"github.com/corrosion/corrosion/panel/reachui"
	"github.com/corrosion/corrosion/panel/store"
)

// portsTOML is ports as [[instance.port]] tables of agent.toml.
func portsTOML(ports []wire.BoundPortInfo) string {
	var b strings.Builder
	for _, p := range ports {
		fmt.Fprintf(&b, "[[instance.port]]\nname = %q\nprotocol = %q\nport = %d\n", p.Name, p.Protocol, p.Port)
	}
	return b.String()
}

// The panel probes an instance by itself after it starts: a real agent
// (public_address 127.0.0.1) runs tools/fakegame with declared ports where
// the test's "game" listens; the start's status event reaches ingest, whose
// commit hands it to the Auto, and the probe's result is stored (dev
// policy). Before the start nothing was probed.
func TestAuto_ProbesAfterStart(t *testing.T) {
	g := newGame(t)
	probed := make(chan string, 4)
	p := paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		pr, err := reach.New(reach.Options{AllowPrivate: true, Timeout: time.Second, Logger: d.Logger})
		if err != nil {
			t.Fatal(err)
		}
		auto := reachui.NewAuto(d.Store, pr, reachui.AutoOptions{AfterStart: -1, Logger: d.Logger,
			Probed: func(license, id string, _ store.Probe, err error) {
				probed <- license + "/" + id + fmt.Sprint(" ", err)
			}})
		d.Go(func(ctx context.Context) { _ = auto.Run(ctx) })
		paneltest.StartIngest(t, d, auto.Committed)
		return []httpx.Feature{reachui.New(reachui.Deps{Store: d.Store, Prober: pr})}
	}})
	p.AddLicense(t, "lic-a")
	paneltest.StartAgentWith(t, p.NATSURL, "lic-a", `public_address = "127.0.0.1"`,
		paneltest.AgentInstance{ID: "rust1", Game: "rust", Extra: portsTOML(g.ports())})
	ctx := context.Background()
	poll.True(t, 15*time.Second, "the instance and its ports reach the store", func() bool {
		in, err := p.Store.Instance(ctx, "lic-a", "rust1")
		return err == nil && len(in.Ports) == 3
	})
	if _, ok, err := p.Store.InstanceProbe(ctx, "lic-a", "rust1"); ok || err != nil {
		t.Fatalf("probed before any start: ok %v err %v", ok, err)
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := agentc.New(p.NC).Instance(sctx, "lic-a", "rust1", wire.FuncStart, nil, nil); err != nil {
		t.Fatalf("start: %v", err)
	}
	select {
	case got := <-probed:
		if got != "lic-a/rust1 <nil>" {
			t.Fatalf("probe after start: %s", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no probe within 20s of the start")
	}
	last, ok, err := p.Store.InstanceProbe(ctx, "lic-a", "rust1")
	if err != nil || !ok {
		t.Fatalf("stored probe: ok %v err %v", ok, err)
	}
	if last.Verdict != reach.VerdictReachable || last.Players == nil || *last.Players != 7 {
		t.Fatalf("probe after start %+v", last)
	}
	if n := g.accepted.Load(); n != 1 {
		t.Errorf("the TCP port accepted %d connections, want 1", n)
	}
}
