//go:build linux

package agent_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

// minetestServer is Debian's minetest server (package minetest-server,
// installed by .ci/run).
const minetestServer = "/usr/games/minetestserver"

// TestMinetest_CreatedFromBuiltinTemplate: Debian's minetest server runs
// for real as an instance created from the built-in minetest template:
// created, started, ready by the template's ready regex, a console line
// sent, stopped.
func TestMinetest_CreatedFromBuiltinTemplate(t *testing.T) {
	p := newProvHarness(t, "", minetestServer)
	debianLog := logSize("/var/log/minetest/minetest.log")
	port := natstest.FreePort(t)
	rep := p.mustOK(p.call(wire.HostCmdSubject(license), fmt.Sprintf(
		`{"func":"instance_create","id":"mt","template":"minetest","values":{"SERVER_PORT":"%d","SERVER_NAME":"Corrosion test"},"label":"Minetest"}`, port)))
	if rep["template"] != "minetest" {
		t.Fatalf("create: %v", rep)
	}
	st := p.mustOK(p.cmd("mt", `{"func":"start","wait":true,"timeout_seconds":120}`))
	if st["state"] != "running" {
		t.Fatalf("start: %v", st)
	}
	p.waitLine("mt", "listening on") // the template's ready regex
	if !p.hasLine("mt", fmt.Sprint(port)) {
		t.Errorf("minetest does not listen on the port given (%d)", port)
	}
	wantFile(t, filepath.Join(p.instancesRoot, "mt", "minetest.conf"), "server_name=Corrosion test", "max_users=15")
	// Its home is the instance root (the agent's user may have none), and
	// it writes no log file outside it (Debian's wrapper asks for one in
	// /var/log/minetest, which only Debian-minetest may write).
	if _, err := os.Stat(filepath.Join(p.instancesRoot, "mt", ".minetest")); err != nil {
		t.Errorf("minetest's user data is not in the instance root: %v", err)
	}
	if got := logSize("/var/log/minetest/minetest.log"); got != debianLog {
		t.Errorf("minetest wrote to Debian's log file (%d bytes, was %d)", got, debianLog)
	}
	// Debian's minetest server does not read its console: the line is
	// written to its stdin and the server goes on.
	p.mustOK(p.cmd("mt", `{"func":"send","command":"/status"}`))
	st = p.mustOK(p.cmd("mt", `{"func":"stop","wait":true,"timeout_seconds":60}`))
	if st["state"] != "stopped" {
		t.Fatalf("stop: %v", st)
	}
	// The template stops it by SIGINT.
	poll.True(t, 10*time.Second, "minetest's shutdown line", func() bool { return p.hasLine("mt", "Ctrl-C pressed, shutting down") })
}

// logSize is the size of the file at path, -1 when there is none.
func logSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}
