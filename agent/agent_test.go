//go:build unix

package agent_test

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
)

const oneGame = `
[[instance]]
id = "game1"
game = "generic"
label = "Game One"
root = "{{root}}"
exec = "{{game}}"
args = ["-stop-line", "quit"]
stop_command = "quit"
stop_timeout_seconds = 2
restart = "never"

[[instance]]
id = "watched"
game = "rust"
root = "{{root}}"
`

func TestAgent_HostCommands(t *testing.T) {
	h := newHarness(t, 60, oneGame)
	hostSubj := wire.HostCmdSubject(license)

	ping := h.mustOK(h.call(hostSubj, `{"func":"ping"}`))
	for _, k := range []string{"version", "commit", "uptime_seconds"} {
		if _, ok := ping[k]; !ok {
			t.Errorf("ping reply lacks %s: %v", k, ping)
		}
	}

	probe := h.mustOK(h.call(hostSubj, `{"func":"probe"}`))
	rep := probe["report"].(map[string]any)
	res := rep["results"].([]any)[0].(map[string]any)
	if res["name"] != "nats" || res["ok"] != true || res["latency_ms"] == nil {
		t.Errorf("probe result %v", res)
	}

	sys := h.mustOK(h.call(hostSubj, `{"func":"sysinfo"}`))
	snap := sys["snapshot"].(map[string]any)
	if snap["schema"] != float64(2) {
		t.Errorf("sysinfo schema %v", snap["schema"])
	}
	if snap["probe"] == nil {
		t.Errorf("sysinfo lacks the cached probe: %v", snap)
	}

	tests := []struct {
		name, body, code, want string
	}{
		{"unknown func", `{"func":"reboot"}`, wire.CodeUnknownFunc, "ping, probe, sysinfo"},
		{"missing func", `{}`, wire.CodeMissingFunc, "func"},
		{"empty func", `{"func":""}`, wire.CodeMissingFunc, "func"},
		{"malformed", `{"func":`, wire.CodeMalformed, "malformed"},
		{"not an object", `[1,2]`, wire.CodeMalformed, "malformed"},
		{"func not a string", `{"func":7}`, wire.CodeMalformed, "string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := h.mustErr(h.call(hostSubj, tt.body), tt.code)
			if !strings.Contains(msg, tt.want) {
				t.Fatalf("message %q lacks %q", msg, tt.want)
			}
		})
	}
}

func TestAgent_Heartbeat(t *testing.T) {
	h := newHarness(t, 1, oneGame+`
[[instance]]
id = "busy"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
autostart = true
[instance.rcon]
kind = "source"
port = 25510
password = "pw"
`)
	h.waitState("busy", "running")
	poll.True(t, 10*time.Second, "three heartbeats", func() bool { return h.heartbeatCount() >= 4 })
	hb := h.lastHeartbeat()
	if hb.Schema != 2 || hb.Agent.Version == "" || hb.Agent.OS == "" || hb.Agent.Arch == "" {
		t.Fatalf("heartbeat head %+v", hb)
	}
	if hb.Host.CPUCores == nil || hb.Host.MemTotalMB == nil || len(hb.Host.Disks) == 0 {
		t.Fatalf("host telemetry missing: %+v", hb.Host)
	}
	if len(hb.Instances) != 3 {
		t.Fatalf("instances %+v", hb.Instances)
	}
	byID := map[string]wire.InstanceReport{}
	for _, in := range hb.Instances {
		byID[in.ID] = in
		if in.Source != wire.SourceHost {
			t.Errorf("%s: source %q, want %q (defined in agent.toml)", in.ID, in.Source, wire.SourceHost)
		}
	}
	if g := byID["game1"]; g.State != wire.StateStopped || g.Label != "Game One" || g.RootDiskFreeMB == nil {
		t.Fatalf("game1 report %+v", g)
	}
	if w := byID["watched"]; w.State != wire.StateConfigured || w.Game != "rust" {
		t.Fatalf("unmanaged report %+v", w)
	}
	if g := byID["game1"]; g.CPUPercent != nil || g.RSSMB != nil {
		t.Fatalf("a stopped instance reports process figures: %+v", g)
	}
	b := byID["busy"]
	if b.State != wire.StateRunning || b.PID == 0 || b.UptimeSeconds < 1 || b.RSSMB == nil || *b.RSSMB == 0 || b.CPUPercent == nil {
		t.Fatalf("running instance report %+v", b)
	}
	// The consoles each instance offers, in the heartbeat and the status
	// reply alike, so the panel can say up front what one lacks.
	for id, want := range map[string]wire.Consoles{"game1": {RCON: "none", ConsoleInput: new(true)},
		"watched": {RCON: "none", ConsoleInput: new(false)}, "busy": {RCON: "source", ConsoleInput: new(true)}} {
		got := byID[id].Consoles
		if got.RCON != want.RCON || got.ConsoleInput == nil || *got.ConsoleInput != *want.ConsoleInput {
			t.Errorf("%s heartbeat consoles %+v, want rcon %q console_input %v", id, got, want.RCON, *want.ConsoleInput)
		}
		rep := h.mustOK(h.cmd(id, `{"func":"status"}`))
		if rep["rcon"] != want.RCON || rep["console_input"] != *want.ConsoleInput {
			t.Errorf("%s status: rcon %v console_input %v, want %q %v", id, rep["rcon"], rep["console_input"], want.RCON, *want.ConsoleInput)
		}
	}
	// Interval: 1 s ± 20% (plus scheduling slack).
	h.mu.Lock()
	times := append([]time.Time(nil), h.hbTimes[1:]...)
	h.mu.Unlock()
	for i := 1; i < len(times); i++ {
		if d := times[i].Sub(times[i-1]); d < 700*time.Millisecond || d > 1400*time.Millisecond {
			t.Errorf("heartbeat interval %v outside 1s ±20%%", d)
		}
	}
}

func TestAgent_InstanceLifecycle(t *testing.T) {
	h := newHarness(t, 60, oneGame)
	st := h.mustOK(h.cmd("game1", `{"func":"status"}`))
	if st["state"] != "stopped" || st["uptime_seconds"] != float64(0) {
		t.Fatalf("initial status %v", st)
	}
	// On connect the agent announces every state; start afresh after it.
	poll.True(t, 15*time.Second, "state announced at connect", func() bool { // generous: a loaded CI machine
		return slices.Equal(h.states("game1"), []string{"stopped"})
	})
	h.resetEvents()
	h.mustOK(h.cmd("game1", `{"func":"start"}`))
	h.waitState("game1", "running")
	h.waitLine("game1", "fakegame starting")
	h.mustErr(h.cmd("game1", `{"func":"start"}`), wire.CodeAlreadyRunning)

	h.mustOK(h.cmd("game1", `{"func":"send","command":"hello world"}`))
	h.waitLine("game1", "echo: hello world")
	logs := h.mustOK(h.cmd("game1", `{"func":"logs","lines":2}`))
	if lines := logs["lines"].([]any); len(lines) != 2 {
		t.Fatalf("logs %v", logs)
	}

	st = h.mustOK(h.cmd("game1", `{"func":"status"}`))
	if st["pid"] == nil || st["pid"].(float64) <= 0 {
		t.Fatalf("status without pid: %v", st)
	}
	rep := h.mustOK(h.cmd("game1", `{"func":"restart","wait":true}`))
	if rep["state"] != "running" || rep["pid"] == st["pid"] {
		t.Fatalf("restart reply %v (old pid %v)", rep, st["pid"])
	}
	rep = h.mustOK(h.cmd("game1", `{"func":"stop","wait":true}`))
	if rep["state"] != "stopped" || rep["exit_code"] != float64(0) {
		t.Fatalf("stop reply %v", rep)
	}
	h.mustErr(h.cmd("game1", `{"func":"stop"}`), wire.CodeNotRunning)
	h.mustErr(h.cmd("game1", `{"func":"send","command":"x"}`), wire.CodeNotRunning)
	want := []string{"running", "stopping", "stopped", "running", "stopping", "stopped"}
	if got := h.states("game1"); !slices.Equal(got, want) {
		t.Fatalf("state events %v, want %v", got, want)
	}
	evs := h.events("game1")
	if last := evs[len(evs)-1]; last.ExitCode == nil || *last.ExitCode != 0 {
		t.Fatalf("stopped event without exit_code: %+v", last)
	}
}

func TestAgent_InstanceErrors(t *testing.T) {
	h := newHarness(t, 60, oneGame)
	tests := []struct {
		name, id, body, code string
	}{
		{"start unmanaged", "watched", `{"func":"start"}`, wire.CodeNotManaged},
		{"stop unmanaged", "watched", `{"func":"stop"}`, wire.CodeNotManaged},
		{"unknown func", "game1", `{"func":"explode"}`, wire.CodeUnknownFunc},
		{"malformed", "game1", `not json`, wire.CodeMalformed},
		{"missing func", "game1", `{"command":"x"}`, wire.CodeMissingFunc},
		{"bad arg type", "game1", `{"func":"logs","lines":"many"}`, wire.CodeBadArgs},
		{"send without command", "game1", `{"func":"send"}`, wire.CodeBadArgs},
		{"rcon not configured", "game1", `{"func":"rcon","command":"status"}`, "rcon_not_configured"},
		{"stop stopped", "game1", `{"func":"stop"}`, wire.CodeNotRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.mustErr(h.cmd(tt.id, tt.body), tt.code)
		})
	}
	msg := h.mustErr(h.cmd("game1", `{"func":"explode"}`), wire.CodeUnknownFunc)
	for _, f := range []string{"start", "stop", "restart", "status", "logs", "send", "rcon", "kill"} {
		if !strings.Contains(msg, f) {
			t.Errorf("unknown-func message %q does not list %s", msg, f)
		}
	}
	st := h.mustOK(h.cmd("watched", `{"func":"status"}`))
	if st["state"] != "configured" || st["managed"] != false {
		t.Fatalf("unmanaged status %v", st)
	}
}

func TestAgent_CrashBackoffAndCrashLoop(t *testing.T) {
	h := newHarness(t, 60, `
[[instance]]
id = "crashy"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
args = ["-run-for", "100ms", "-exit-code", "9"]
restart = "on-crash"
`)
	h.mustOK(h.cmd("crashy", `{"func":"start"}`))
	poll.True(t, 20*time.Second, "crash loop stop", func() bool {
		evs := h.events("crashy")
		return len(evs) > 0 && strings.Contains(evs[len(evs)-1].Message, "crash loop")
	})
	var crashes int
	for _, e := range h.events("crashy") {
		if e.State == wire.StateCrashed {
			crashes++
			if e.ExitCode == nil || *e.ExitCode != 9 {
				t.Fatalf("crash event without exit code 9: %+v", e)
			}
		}
	}
	if crashes != 4 {
		t.Fatalf("%d crash events, want 4 (events %v)", crashes, h.states("crashy"))
	}
	h.waitLine("crashy", "crash loop")
	st := h.mustOK(h.cmd("crashy", `{"func":"status"}`))
	if st["state"] != "crashed" || st["crash_count"] != float64(4) || st["restart_in_seconds"] != nil {
		t.Fatalf("status after the crash loop %v", st)
	}
}

func TestAgent_GracefulStopVersusForceKill(t *testing.T) {
	h := newHarness(t, 60, `
[[instance]]
id = "stubborn"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
args = ["-ignore-sigterm"]
stop_timeout_seconds = 1

[[instance]]
id = "polite"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
`)
	for _, id := range []string{"stubborn", "polite"} {
		h.mustOK(h.cmd(id, `{"func":"start","wait":true}`))
		h.waitLine(id, "fakegame starting")
	}
	start := time.Now()
	polite := h.mustOK(h.cmd("polite", `{"func":"stop","wait":true}`))
	if polite["exit_code"] != float64(0) || time.Since(start) > 900*time.Millisecond {
		// The kill timer is 1 s: a graceful stop must be well inside it.
		t.Fatalf("graceful stop: %v after %v", polite, time.Since(start))
	}
	h.mustOK(h.cmd("stubborn", `{"func":"stop"}`))
	h.mustErr(h.cmd("stubborn", `{"func":"start"}`), wire.CodeBusy)
	h.mustErr(h.cmd("stubborn", `{"func":"restart"}`), wire.CodeBusy)
	rep := h.waitState("stubborn", "stopped")
	if rep["exit_code"] != float64(137) {
		t.Fatalf("force-killed exit code %v, want 137", rep["exit_code"])
	}
	h.waitLine("stubborn", "killing the process tree")
}

func TestAgent_AdoptionAfterKill9(t *testing.T) {
	h := newHarness(t, 60, oneGame)
	h.mustOK(h.cmd("game1", `{"func":"start","wait":true}`))
	before := h.mustOK(h.cmd("game1", `{"func":"status"}`))
	pid := int(before["pid"].(float64))
	h.stopAgent(syscall.SIGKILL)
	if processGone(pid) {
		t.Fatal("game died with the agent")
	}
	time.Sleep(1100 * time.Millisecond) // let uptime tick past a second boundary
	h.resetEvents()
	h.startAgent()
	after := h.waitState("game1", "running")
	if int(after["pid"].(float64)) != pid || after["adopted"] != true {
		t.Fatalf("after restart %v, want adopted pid %d", after, pid)
	}
	if after["uptime_seconds"].(float64) < 1 {
		t.Fatalf("uptime did not continue: %v", after)
	}
	h.mustOK(h.cmd("game1", `{"func":"send","command":"still here"}`))
	h.waitLine("game1", "echo: still here")
	h.mustOK(h.cmd("game1", `{"func":"stop","wait":true}`))
	if !processGone(pid) {
		t.Fatal("adopted process still alive after stop")
	}
}

func TestAgent_AdoptionAfterGracefulAgentStop(t *testing.T) {
	h := newHarness(t, 60, oneGame)
	h.mustOK(h.cmd("game1", `{"func":"start","wait":true}`))
	pid := h.mustOK(h.cmd("game1", `{"func":"status"}`))["pid"]
	h.stopAgent(syscall.SIGTERM)
	poll.True(t, 5*time.Second, "going_offline", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.offline == 1
	})
	h.startAgent()
	if got := h.waitState("game1", "running")["pid"]; got != pid {
		t.Fatalf("pid %v after agent restart, want %v", got, pid)
	}
}

func TestAgent_NATSRestartMidRun(t *testing.T) {
	h := newHarness(t, 60, oneGame)
	pid := int(h.mustOK(h.cmd("game1", `{"func":"start","wait":true}`))["pid"].(float64))
	poll.True(t, 10*time.Second, "first heartbeat", func() bool { return h.heartbeatCount() >= 1 })
	h.ns.Shutdown()
	// The agent keeps supervising while NATS is down: it notices the outage
	// and the game keeps running.
	poll.True(t, 10*time.Second, "agent saw the outage", func() bool {
		return strings.Contains(h.agentOut.String(), "nats disconnected")
	})
	if processGone(pid) {
		t.Fatal("the game died with the NATS connection")
	}
	before := h.heartbeatCount()
	h.resetEvents()
	h.ns.Restart()
	// On reconnect: a heartbeat and the instance state at once (well before
	// the 60 s heartbeat interval).
	poll.True(t, 15*time.Second, "heartbeat after reconnect", func() bool { return h.heartbeatCount() > before })
	poll.True(t, 15*time.Second, "state after reconnect", func() bool {
		return slices.Contains(h.states("game1"), "running")
	})
	h.mustOK(h.cmd("game1", `{"func":"send","command":"after the outage"}`))
	h.waitLine("game1", "echo: after the outage")
}

func TestAgent_DependsOnOrdersStart(t *testing.T) {
	h := newHarness(t, 60, `
[[instance]]
id = "world"
game = "worldsrv"
root = "{{root}}"
exec = "{{game}}"
depends_on = ["sidecar"]

[[instance]]
id = "sidecar"
game = "ether"
root = "{{root}}"
exec = "{{game}}"
ready_pattern = "^Server ready"
args = ["-ready-after", "300ms"]
`)
	h.mustOK(h.cmd("world", `{"func":"start"}`))
	h.waitState("world", "running")
	// After the states announced at connect: the sidecar started and
	// became ready before the world started.
	sidecar := h.events("sidecar")
	world := h.events("world")
	i := slices.IndexFunc(sidecar, func(e wire.StateEvent) bool { return e.State == "starting" })
	if i < 0 || i+1 >= len(sidecar) || sidecar[i+1].State != "running" {
		t.Fatalf("sidecar events %v", sidecar)
	}
	if j := slices.IndexFunc(world, func(e wire.StateEvent) bool { return e.State == "running" }); j < 0 {
		t.Fatalf("world events %v", world)
	}
}

func TestAgent_Autostart(t *testing.T) {
	h := newHarness(t, 60, `
[[instance]]
id = "auto"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
autostart = true
`)
	h.waitState("auto", "running")
	h.mustOK(h.cmd("auto", `{"func":"stop","wait":true}`))
	// A manual stop survives an agent restart: no autostart then.
	h.stopAgent(syscall.SIGTERM)
	h.startAgent()
	time.Sleep(500 * time.Millisecond)
	if st := h.mustOK(h.cmd("auto", `{"func":"status"}`)); st["state"] != "stopped" {
		t.Fatalf("manually stopped instance was autostarted: %v", st)
	}
}

func TestAgentBinary_VersionAndValidate(t *testing.T) {
	h := newHarness(t, 60, oneGame)
	out, err := exec.Command(h.bin, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "commit") {
		t.Fatalf("version: %v %s", err, out)
	}
	out, err = exec.Command(h.bin, "validate", "--config", h.cfgPath).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("validate good config: %v %s", err, out)
	}
	bad := strings.Replace(h.cfgPath, "agent.toml", "bad.toml", 1)
	writeFile(t, bad, `[agent]
license_id = "bad license!"
[[instance]]
id = "host"
game = "tetris"
root = "/nonexistent"
`)
	out, err = exec.Command(h.bin, "validate", "--config", bad).CombinedOutput()
	if err == nil {
		t.Fatalf("bad config accepted: %s", out)
	}
	for _, want := range []string{"license_id", "bad license!", `"host"`, "tetris"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
	out, err = exec.Command(h.bin, "run", "--config", bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "license_id") {
		t.Fatalf("run with a bad config: %v %s", err, out)
	}
	_ = fmt.Sprint()
}

func TestAgent_StartsWhileNATSIsDown(t *testing.T) {
	h := prepareHarness(t, 60, `
[[instance]]
id = "early"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
autostart = true
`, "")
	h.ns.Shutdown()
	h.launch() // the agent boots before the network
	poll.True(t, 10*time.Second, "autostart while NATS is down", func() bool {
		return strings.Contains(h.agentOut.String(), "state=running")
	})
	h.ns.Restart()
	h.waitReady()
	if st := h.waitState("early", "running"); st["pid"] == nil {
		t.Fatalf("status %v", st)
	}
}

func TestAgent_KillOverNATS(t *testing.T) {
	h := newHarness(t, 60, `
[[instance]]
id = "stubborn"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
args = ["-ignore-sigterm"]
stop_timeout_seconds = 60
`)
	h.mustErr(h.cmd("stubborn", `{"func":"kill"}`), wire.CodeNotRunning)
	h.mustOK(h.cmd("stubborn", `{"func":"start","wait":true}`))
	h.waitLine("stubborn", "fakegame starting")
	h.mustOK(h.cmd("stubborn", `{"func":"stop"}`))
	h.waitLine("stubborn", "ignoring")
	rep := h.mustOK(h.cmd("stubborn", `{"func":"kill","wait":true}`))
	if rep["state"] != "stopped" || rep["exit_code"] != float64(137) || rep["manual_stop"] != true {
		t.Fatalf("kill reply %v", rep)
	}
}

// TestAgent_HeartbeatPortsAndAddress: [agent] public_address and each
// instance's [[instance.port]] reach the heartbeat as declared (what the
// panel's inbound probe may try); an instance without ports reports none.
func TestAgent_HeartbeatPortsAndAddress(t *testing.T) {
	h := prepareHarness(t, 1, oneGame+`
[[instance.port]]
name = "query"
protocol = "udp"
port = 28017

[[instance.port]]
name = "rcon"
protocol = "tcp"
port = 28016
`, `public_address = "game.example.com"`)
	h.startAgent()
	poll.True(t, 10*time.Second, "a heartbeat", func() bool { return h.heartbeatCount() >= 1 })
	hb := h.lastHeartbeat()
	if hb.Host.PublicAddress != "game.example.com" {
		t.Errorf("public_address %q", hb.Host.PublicAddress)
	}
	for _, in := range hb.Instances {
		switch in.ID {
		case "watched":
			want := []wire.BoundPortInfo{{Name: "query", Protocol: "udp", Port: 28017}, {Name: "rcon", Protocol: "tcp", Port: 28016}}
			if !slices.Equal(in.Ports, want) {
				t.Errorf("watched ports %+v, want %+v", in.Ports, want)
			}
		case "game1":
			if in.Ports != nil {
				t.Errorf("game1 declares no port, reports %+v", in.Ports)
			}
		}
	}
}
