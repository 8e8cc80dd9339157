//go:build unix

package agent_test

import (
	"slices"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

// TestAgent_OnExternalNATSServer runs a representative part of the agent's
// NATS use — heartbeats, status, a start and a stop with their state
// events, a host command — against the machine's nats-server binary as its
// own process (Debian 12: 2.9.10), with the same harness as the other
// agent tests.
func TestAgent_OnExternalNATSServer(t *testing.T) {
	natstest.UseExternal(t)
	h := newHarness(t, 1, oneGame)
	if h.ns.Kind() != natstest.External {
		t.Fatalf("harness runs on a %s server", h.ns.Kind())
	}
	h.mustOK(h.call(wire.HostCmdSubject(license), `{"func":"ping"}`))
	poll.True(t, 10*time.Second, "two heartbeats", func() bool { return h.heartbeatCount() >= 2 })
	if hb := h.lastHeartbeat(); hb.Schema != 2 || len(hb.Instances) != 2 {
		t.Fatalf("heartbeat %+v", hb)
	}
	if st := h.mustOK(h.cmd("game1", `{"func":"status"}`)); st["state"] != "stopped" {
		t.Fatalf("initial status %v", st)
	}
	poll.True(t, 5*time.Second, "state announced at connect", func() bool {
		return slices.Equal(h.states("game1"), []string{"stopped"})
	})
	h.resetEvents()
	if rep := h.mustOK(h.cmd("game1", `{"func":"start","wait":true}`)); rep["state"] != "running" {
		t.Fatalf("start reply %v", rep)
	}
	h.waitLine("game1", "fakegame starting")
	if st := h.mustOK(h.cmd("game1", `{"func":"status"}`)); st["state"] != "running" || st["pid"] == nil {
		t.Fatalf("status while running %v", st)
	}
	if rep := h.mustOK(h.cmd("game1", `{"func":"stop","wait":true}`)); rep["state"] != "stopped" || rep["exit_code"] != float64(0) {
		t.Fatalf("stop reply %v", rep)
	}
	want := []string{"running", "stopping", "stopped"}
	poll.True(t, 5*time.Second, "state events", func() bool { return slices.Equal(h.states("game1"), want) })
}

// TestAgent_NATSRestartMidRun_OnExternalNATSServer: the agent rides out a
// restart of an external nats-server process.
func TestAgent_NATSRestartMidRun_OnExternalNATSServer(t *testing.T) {
	natstest.UseExternal(t)
	TestAgent_NATSRestartMidRun(t)
}
