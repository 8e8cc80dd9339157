package agent_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

// TestInstanceUpdateDelete_Lifecycle: config edits before a start; an
// update of a running instance keeps it running, re-edits its config
// files, says which changes need a restart, and the restart runs the new
// values; a delete is refused while it runs, and force + purge stops it,
// removes its files and record, and its subjects answer unknown_instance.
func TestInstanceUpdateDelete_Lifecycle(t *testing.T) {
	p := newProvHarness(t, "")
	port, port2 := natstest.FreePort(t), natstest.FreePort(t)
	p.mustOK(p.create("life", map[string]string{"GAME_PORT": fmt.Sprint(port), "MOTD": "one"}))
	root := filepath.Join(p.instancesRoot, "life")
	props := filepath.Join(root, "game.properties")

	st := p.mustOK(p.cmd("life", `{"func":"start","wait":true}`))
	pid := st["pid"]
	p.waitLine("life", "motd one")
	wantFile(t, props, "motd=one", fmt.Sprintf("port=%d", port))

	rep := p.mustOK(p.call(wire.HostCmdSubject(license), `{"func":"instance_update","id":"life","values":{"MOTD":"two"}}`))
	if fmt.Sprint(rep["changed"]) != "[MOTD]" || rep["restart_required"] != nil {
		t.Fatalf("update MOTD: %v, want changed [MOTD], no restart_required", rep)
	}
	wantFile(t, props, "motd=two")
	rep = p.mustOK(p.call(wire.HostCmdSubject(license),
		fmt.Sprintf(`{"func":"instance_update","id":"life","values":{"GAME_PORT":"%d"},"label":"Renamed"}`, port2)))
	if fmt.Sprint(rep["changed"]) != "[GAME_PORT]" || fmt.Sprint(rep["restart_required"]) != "[GAME_PORT]" {
		t.Fatalf("update GAME_PORT: %v, want changed and restart_required [GAME_PORT]", rep)
	}
	st = p.mustOK(p.cmd("life", `{"func":"status"}`))
	if st["state"] != "running" || st["pid"] != pid {
		t.Fatalf("after the updates: %v, want still running as pid %v", st, pid)
	}
	p.heartbeatEntry("life", func(r wire.InstanceReport) error {
		if r.Label != "Renamed" || len(r.Ports) != 1 || r.Ports[0].Port != port2 {
			return fmt.Errorf("heartbeat entry %+v, want label Renamed, port %d", r, port2)
		}
		return nil
	})
	data, _ := os.ReadFile(filepath.Join(p.dir, "state", "provisioned", "life.json"))
	if !strings.Contains(string(data), `"MOTD": "two"`) || !strings.Contains(string(data), fmt.Sprintf(`"GAME_PORT": "%d"`, port2)) {
		t.Errorf("stored record does not hold the new values:\n%s", data)
	}

	p.mustOK(p.cmd("life", `{"func":"restart","wait":true}`))
	p.waitLine("life", "motd two")
	wantFile(t, props, fmt.Sprintf("port=%d", port2))
	st = p.mustOK(p.cmd("life", `{"func":"status"}`))
	pid = st["pid"]

	rep = p.call(wire.HostCmdSubject(license), `{"func":"instance_delete","id":"life"}`)
	p.mustErr(rep, wire.CodeInstanceRunning)
	if rep["field"] != "force" {
		t.Errorf("delete of a running instance names field %v, want force", rep["field"])
	}
	if st := p.mustOK(p.cmd("life", `{"func":"status"}`)); st["state"] != "running" {
		t.Fatalf("a refused delete changed the instance: %v", st)
	}

	rep = p.mustOK(p.call(wire.HostCmdSubject(license), `{"func":"instance_delete","id":"life","force":true,"purge":true}`))
	if rep["stopped"] != true || rep["purged"] != true {
		t.Fatalf("delete: %v, want stopped and purged", rep)
	}
	if !processGone(int(pid.(float64))) {
		t.Errorf("the game (pid %v) still runs after delete", pid)
	}
	if !p.hasLine("life", `stopping: sending "stop" to the console`) {
		t.Errorf("the force delete did not stop the game gracefully (stop command)")
	}
	for _, gone := range []string{root, filepath.Join(p.dir, "state", "provisioned", "life.json"), filepath.Join(p.dir, "state", "instances", "life")} {
		if _, err := os.Lstat(gone); err == nil {
			t.Errorf("%s is left after delete with purge", gone)
		}
	}
	p.mustErr(p.cmd("life", `{"func":"status"}`), wire.CodeUnknownInstance)
	p.mustErr(p.cmd("life", `{"func":"start"}`), wire.CodeUnknownInstance)
	p.mustErr(p.call(wire.FilesCmdSubject(license, "life"), `{"func":"fm_list","path":""}`), wire.CodeUnknownInstance)
	since := time.Now()
	poll.Until(t, 10*time.Second, func() error {
		hb := p.lastHeartbeat()
		if hb.Timestamp.Before(since) {
			return fmt.Errorf("no heartbeat since the delete")
		}
		if slices.ContainsFunc(hb.Instances, func(r wire.InstanceReport) bool { return r.ID == "life" }) {
			return fmt.Errorf("the heartbeat still reports life")
		}
		return nil
	})
	// The id is free again, and a delete without purge keeps the files.
	p.mustOK(p.create("life", map[string]string{"GAME_PORT": fmt.Sprint(port)}))
	p.mustOK(p.call(wire.HostCmdSubject(license), `{"func":"instance_delete","id":"life"}`))
	if _, err := os.Stat(root); err != nil {
		t.Errorf("delete without purge removed the root: %v", err)
	}
}

func wantFile(t *testing.T, path string, wants ...string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wants {
		if !strings.Contains(string(data), w) {
			t.Errorf("%s lacks %q:\n%s", filepath.Base(path), w, data)
		}
	}
}

// TestInstanceDelete_ForceWaitsForTheKill: a game that ignores its stop is
// killed after the template's stop timeout, and the force delete waits for
// it; meanwhile a power action on the instance is busy, never a start.
func TestInstanceDelete_ForceWaitsForTheKill(t *testing.T) {
	p := newProvHarness(t, "")
	p.template = strings.NewReplacer(`"-ready-after", "20ms"`, `"-ready-after", "20ms", "-stop-line", "", "-ignore-sigterm"`,
		`timeout = "10s"`, `timeout = "2s"`).Replace(p.template)
	p.mustOK(p.create("stubborn", map[string]string{"GAME_PORT": fmt.Sprint(natstest.FreePort(t))}))
	pid := p.mustOK(p.cmd("stubborn", `{"func":"start","wait":true}`))["pid"]
	done := make(chan map[string]any, 1)
	go func() {
		done <- p.call(wire.HostCmdSubject(license), `{"func":"instance_delete","id":"stubborn","force":true}`)
	}()
	poll.Until(t, 10*time.Second, func() error {
		if st := p.cmd("stubborn", `{"func":"status"}`); st["state"] != "stopping" {
			return fmt.Errorf("state %v, want stopping", st["state"])
		}
		return nil
	})
	msg := p.mustErr(p.cmd("stubborn", `{"func":"start"}`), wire.CodeBusy)
	if !strings.Contains(msg, "being deleted") {
		t.Errorf("start during a delete: %q, want it to say the instance is being deleted", msg)
	}
	rep := p.mustOK(<-done)
	if rep["stopped"] != true {
		t.Fatalf("delete: %v, want stopped", rep)
	}
	if !processGone(int(pid.(float64))) {
		t.Errorf("the game (pid %v) still runs after delete", pid)
	}
	if !p.hasLine("stubborn", "killing the process tree") {
		t.Errorf("the game was not killed after its stop timeout")
	}
	p.mustErr(p.cmd("stubborn", `{"func":"status"}`), wire.CodeUnknownInstance)
}
