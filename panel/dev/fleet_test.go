package dev

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/agent/config"
)

// TestWriteAgentConfig_TheAgentReadsWhatDevPlanned: the demo fleet's
// agent.toml, written in the agent's own types, loads with the agent's own
// loader into exactly the config dev planned (no key lost, renamed or
// left to a different default), and the RCON password is not on any
// command line.
func TestWriteAgentConfig_TheAgentReadsWhatDevPlanned(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	worlds, err := planWorlds(PortsFree)
	if err != nil {
		t.Fatal(err)
	}
	p := fleetPlan{dir: t.TempDir(), natsURL: "nats://127.0.0.1:4999", panelPort: 7999, etherBin: exe, worldBin: exe,
		db: gameDB{host: "127.0.0.1", port: 5999, user: "u", pass: "p", name: "rs"}, worlds: worlds, rconPass: GeneratePassword()}
	path, err := writeAgentConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := config.Load(path)
	if err != nil {
		t.Fatalf("the agent refuses dev's config: %v", err)
	}
	if want := p.agentConfig(); !reflect.DeepEqual(*got, want) {
		t.Fatalf("the agent reads\n%+v\ndev planned\n%+v", *got, want)
	}
	if len(got.Instances) != 2*len(worlds) || got.Instance("world10") == nil || got.Instance("ether11") == nil {
		t.Fatalf("instances: %+v", got.Instances)
	}
	w := got.Instance("world10")
	if w.RCON == nil || w.RCON.Password != p.rconPass || w.Env["RS_RCON_PASSWORD"] != p.rconPass || w.DependsOn[0] != "ether10" {
		t.Fatalf("world10: %+v", w)
	}
	for _, in := range got.Instances {
		if strings.Contains(strings.Join(in.Args, " "), p.rconPass) {
			t.Fatalf("%s: the RCON password is on the command line", in.ID)
		}
	}
}
