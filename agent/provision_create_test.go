package agent_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// tinyTemplate is a template whose game is tools/fakegame (PROGRAM): a
// port variable, a secret, a config file and a stop command.
const tinyTemplate = `
id = "tiny"
name = "Tiny"
game = "generic"
version = 1

[[variable]]
key = "GAME_PORT"
type = "port"
required = true
restart_required = true

[[variable]]
key = "MOTD"
type = "string"
default = "hello"
max_length = 40

[[variable]]
key = "ADMIN_PASSWORD"
type = "secret"
default = "s3cret-default"

[[port]]
name = "game"
protocol = "tcp"
variable = "GAME_PORT"

[[config_file]]
path = "game.properties"
format = "properties"
set = { motd = "{{MOTD}}", port = "{{GAME_PORT}}" }

[run]
program = "PROGRAM"
args = ["-ready-after", "20ms", "-banner", "motd {{MOTD}}"]

[run.ready]
regex = "^Server ready"
timeout = "30s"

[run.stop]
kind = "command"
value = "stop"
timeout = "10s"
`

// hostDefined is an agent.toml instance beside the created ones.
const hostDefined = `[[instance]]
id = "hostdef"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
`

// provHarness is an agent with provisioning on, fakegame allowed and
// instances_root in the test's directory; allowed are more programs
// the host allows.
type provHarness struct {
	*harness
	instancesRoot string
	template      string // tinyTemplate with its program filled in
}

func newProvHarness(t *testing.T, instances string, allowed ...string) *provHarness {
	t.Helper()
	game := testbin.Build(t, "./tools/fakegame")
	root := filepath.Join(t.TempDir(), "instances")
	programs, _ := json.Marshal(append([]string{game}, allowed...)) // a TOML array of strings
	h := prepareHarness(t, 1, instances, fmt.Sprintf("provisioning = true\ninstances_root = %q\nallowed_programs = %s\n",
		root, programs))
	h.startAgent()
	return &provHarness{harness: h, instancesRoot: root, template: strings.ReplaceAll(tinyTemplate, "PROGRAM", game)}
}

// create sends instance_create with the test template and values.
func (p *provHarness) create(id string, values map[string]string) map[string]any {
	p.t.Helper()
	body, err := json.Marshal(wire.InstanceCreateRequest{Func: wire.FuncInstanceCreate, ID: id,
		TemplateTOML: p.template, Values: values, Label: "Tiny " + id})
	if err != nil {
		p.t.Fatal(err)
	}
	return p.call(wire.HostCmdSubject(license), string(body))
}

// heartbeatEntry waits for a heartbeat that reports id and returns its
// entry; absent: a heartbeat without it.
func (p *provHarness) heartbeatEntry(id string, want func(wire.InstanceReport) error) wire.InstanceReport {
	p.t.Helper()
	var got wire.InstanceReport
	poll.Until(p.t, 10*time.Second, func() error {
		if p.heartbeatCount() == 0 {
			return fmt.Errorf("no heartbeat yet")
		}
		for _, r := range p.lastHeartbeat().Instances {
			if r.ID == id {
				got = r
				return want(r)
			}
		}
		return fmt.Errorf("the last heartbeat does not report %s", id)
	})
	return got
}

// TestInstanceCreate_RunsStoredAndAdopted: an instance created from a
// template the panel sent gets its root under instances_root, is stored
// 0600 in the state dir, starts through its cmd subject, is reported with
// source "panel", and after an agent restart is loaded and adopted.
func TestInstanceCreate_RunsStoredAndAdopted(t *testing.T) {
	p := newProvHarness(t, "")
	port := natstest.FreePort(t)
	rep := p.mustOK(p.create("tiny1", map[string]string{"GAME_PORT": fmt.Sprint(port), "MOTD": "welcome"}))
	root := filepath.Join(p.instancesRoot, "tiny1")
	if rep["id"] != "tiny1" || rep["template"] != "tiny" || rep["root"] != root {
		t.Fatalf("create reply %v, want id tiny1, template tiny, root %s", rep, root)
	}
	ports, _ := rep["ports"].([]any)
	if len(ports) != 1 || ports[0].(map[string]any)["port"] != float64(port) {
		t.Fatalf("create reply ports %v, want game %d", rep["ports"], port)
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		t.Fatalf("instance root: %v", err)
	}
	stored := filepath.Join(p.dir, "state", "provisioned", "tiny1.json")
	fi, err := os.Stat(stored)
	if err != nil {
		t.Fatalf("stored record: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("stored record mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(stored)
	for _, want := range []string{`"template": "tiny"`, `"MOTD": "welcome"`, `"label": "Tiny tiny1"`, `"created"`, `"template_toml"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("stored record lacks %s:\n%s", want, data)
		}
	}

	st := p.mustOK(p.cmd("tiny1", `{"func":"start","wait":true}`))
	if st["state"] != "running" {
		t.Fatalf("start: %v", st)
	}
	p.waitLine("tiny1", "motd welcome")
	p.heartbeatEntry("tiny1", func(r wire.InstanceReport) error {
		if r.Source != wire.SourcePanel || r.State != wire.StateRunning || r.Label != "Tiny tiny1" {
			return fmt.Errorf("heartbeat entry %+v, want source panel, running, label", r)
		}
		return nil
	})
	pid := st["pid"]

	p.stopAgent(syscall.SIGTERM)
	p.startAgent()
	st = p.mustOK(p.cmd("tiny1", `{"func":"status"}`))
	if st["state"] != "running" || st["adopted"] != true || st["pid"] != pid {
		t.Fatalf("after an agent restart: %v, want running, adopted, pid %v", st, pid)
	}
	p.mustErr(p.create("tiny1", map[string]string{"GAME_PORT": fmt.Sprint(natstest.FreePort(t))}), wire.CodeInstanceExists)
	p.mustOK(p.cmd("tiny1", `{"func":"stop","wait":true}`))
}

// TestInstanceCreate_OneOfTwoConcurrentWins: two creates of one id at once:
// exactly one succeeds, the other is instance_exists.
func TestInstanceCreate_OneOfTwoConcurrentWins(t *testing.T) {
	p := newProvHarness(t, "")
	results := make(chan map[string]any, 2)
	for range 2 {
		go func() {
			body, _ := json.Marshal(wire.InstanceCreateRequest{Func: wire.FuncInstanceCreate, ID: "twin",
				TemplateTOML: p.template, Values: map[string]string{"GAME_PORT": fmt.Sprint(natstest.FreePort(t))}})
			raw, err := p.request(wire.HostCmdSubject(license), string(body))
			var m map[string]any
			if err == nil {
				err = json.Unmarshal(raw, &m)
			}
			if err != nil {
				m = map[string]any{"status": "request failed: " + err.Error()}
			}
			results <- m
		}()
	}
	a, b := <-results, <-results
	ok, refused := 0, 0
	for _, r := range []map[string]any{a, b} {
		switch {
		case r["status"] == "success":
			ok++
		case r["code"] == wire.CodeInstanceExists:
			refused++
		}
	}
	if ok != 1 || refused != 1 {
		t.Fatalf("two creates of one id: %v and %v, want one success and one instance_exists", a, b)
	}
}

// TestInstanceCreate_BadRecordsAreKeptNotLoaded: at start, a record that
// is not JSON, one whose template no longer renders and one whose id
// agent.toml now defines are logged and left on disk; the agent serves
// the rest.
func TestInstanceCreate_BadRecordsAreKeptNotLoaded(t *testing.T) {
	p := newProvHarness(t, hostDefined)
	port := natstest.FreePort(t)
	p.mustOK(p.create("good", map[string]string{"GAME_PORT": fmt.Sprint(port)}))
	p.stopAgent(syscall.SIGTERM)
	dir := filepath.Join(p.dir, "state", "provisioned")
	good, err := os.ReadFile(filepath.Join(dir, "good.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string]string{
		"notjson.json":  "{",
		"norender.json": strings.ReplaceAll(strings.ReplaceAll(string(good), `"good"`, `"norender"`), fmt.Sprint(port), "70000"),
		"hostdef.json":  strings.ReplaceAll(string(good), `"good"`, `"hostdef"`),
	}
	for name, data := range bad {
		writeFile(t, filepath.Join(dir, name), data)
	}
	p.startAgent()
	p.mustOK(p.cmd("good", `{"func":"status"}`))
	p.mustErr(p.cmd("norender", `{"func":"status"}`), wire.CodeUnknownInstance)
	p.mustOK(p.cmd("hostdef", `{"func":"status"}`))
	p.mustErr(p.call(wire.HostCmdSubject(license), `{"func":"instance_delete","id":"hostdef"}`), wire.CodeHostDefined)
	for name, data := range bad {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != data {
			t.Errorf("%s was not left as it was: %v", name, err)
		}
	}
	poll.True(t, 10*time.Second, "the agent logs each record it did not load", func() bool {
		out := p.agentOut.String()
		return strings.Count(out, "created instance not loaded") == 3
	})
}
