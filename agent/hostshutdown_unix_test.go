//go:build unix

package agent_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// twoSavingGames: two games that exit with code 7 on their stop command
// (and 143 on SIGTERM), with the crash policy that restarts on any exit.
var twoSavingGames = savingGame("g1") + savingGame("g2")

func savingGame(id string) string {
	return `
[[instance]]
id = "` + id + `"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
args = ["-stop-line", "save-and-quit", "-stop-exit-code", "7", "-term-exit-code", "143"]
stop_command = "save-and-quit"
stop_timeout_seconds = 5
restart = "always"
autostart = true
`
}

// TestAgent_HostShutdownSignal_StopsEveryGameGracefully: SIGUSR2 (sent by
// the systemd unit's shutdown hook when the host goes down) makes the
// agent stop both games with their stop command, publish their stopped
// states, and exit 0; restart = "always" restarts neither, and neither is
// marked as stopped by an operator (autostart starts them at the next
// boot).
func TestAgent_HostShutdownSignal_StopsEveryGameGracefully(t *testing.T) {
	h := newHarness(t, 60, twoSavingGames)
	ids := []string{"g1", "g2"}
	pids := map[string]int{}
	for _, id := range ids {
		rep := h.waitState(id, "running")
		pids[id] = int(rep["pid"].(float64))
	}
	if err := h.agent.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	if code := h.waitAgentExit(20 * time.Second); code != 0 {
		t.Fatalf("the agent exited with %d after the host-shutdown signal, want 0:\n%s", code, h.agentOut.String())
	}
	out := h.agentOut.String()
	if !strings.Contains(out, `msg="host shutdown: 2 games stopped"`) {
		t.Errorf("the agent did not log the host-shutdown line:\n%s", out)
	}
	for _, id := range ids {
		if !processGone(pids[id]) {
			t.Errorf("%s (pid %d) still runs after the agent exited", id, pids[id])
		}
		if !h.hasLine(id, "stop line received, shutting down") {
			t.Errorf("%s did not get its stop command", id)
		}
		h.checkStoppedOnce(id)
		h.checkNotManualStop(id)
	}
}

// waitAgentExit waits for the agent to exit and returns its exit code.
func (h *harness) waitAgentExit(timeout time.Duration) int {
	h.t.Helper()
	done := make(chan error, 1)
	go func() { done <- h.agent.Wait() }()
	select {
	case err := <-done:
		h.agent = nil
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			h.t.Fatal(err)
		}
		return 0
	case <-time.After(timeout):
		h.t.Fatalf("the agent did not exit within %v:\n%s", timeout, h.agentOut.String())
		return -1
	}
}

// checkStoppedOnce: the events of id published since it ran end in one
// stopping and one stopped with the stop command's exit code, and nothing
// was started again.
func (h *harness) checkStoppedOnce(id string) {
	h.t.Helper()
	evs := h.events(id)
	i := slices.IndexFunc(evs, func(e wire.StateEvent) bool { return e.State == wire.StateStopping })
	if i < 0 {
		h.t.Errorf("%s: no stopping event published: %v", id, h.states(id))
		return
	}
	var after []string
	for _, e := range evs[i+1:] {
		after = append(after, string(e.State))
	}
	if !slices.Equal(after, []string{string(wire.StateStopped)}) {
		h.t.Errorf("%s: after stopping the agent published %v, want just [stopped]", id, after)
		return
	}
	if last := evs[len(evs)-1]; last.ExitCode == nil || *last.ExitCode != 7 {
		h.t.Errorf("%s: stopped with exit code %v, want 7 (the stop command's)", id, last.ExitCode)
	}
}

// checkNotManualStop: state.json records no process and no manual stop.
func (h *harness) checkNotManualStop(id string) {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, "state", "instances", id, "state.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	var st struct {
		ManualStop bool            `json:"manual_stop"`
		Process    json.RawMessage `json:"process"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		h.t.Fatalf("%s: state.json: %v", id, err)
	}
	if st.ManualStop || (len(st.Process) > 0 && string(st.Process) != "null") {
		h.t.Errorf("%s: state.json after the host shutdown: %s (want no process, manual_stop false)", id, b)
	}
}
