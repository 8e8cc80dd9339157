package dev

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/childproc"
)

// Budgets of the shutdown.
const (
	instanceStopBudget = 30 * time.Second // a world saves its players, then its sidecar stops
	agentStopBudget    = 10 * time.Second
	sweepBudget        = 5 * time.Second
)

// agentProc is the demo agent started as a child.
type agentProc struct {
	cmd      *exec.Cmd     // immutable after startAgent; Wait is the reaper goroutine's
	stateDir string        // immutable; the agent's state_dir: the games' recorded PIDs
	log      *slog.Logger  // immutable
	exited   chan struct{} // closed once the process is reaped
	stopping atomic.Bool   // set when stop begins: the exit is ours
}

// startAgent starts `corrosion-agent run --config cfgPath`, its output
// going to logw.
func startAgent(bin, cfgPath, stateDir string, logw io.Writer, log *slog.Logger) (*agentProc, error) {
	cmd := exec.Command(bin, "run", "--config", cfgPath)
	cmd.Stdout, cmd.Stderr = logw, logw
	ownGroup(cmd)
	// Bound: the agent dies with dev however dev ends (kill -9 included),
	// and the demo games with the agent (games_die_with_agent).
	if err := childproc.StartBound(cmd); err != nil {
		return nil, fmt.Errorf("start corrosion-agent: %w", err)
	}
	a := &agentProc{cmd: cmd, stateDir: stateDir, log: log, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(a.exited)
	}()
	return a, nil
}

// stop stops the demo fleet, then the agent, then kills whatever game
// process is still recorded in the agent's state. The demo games die with
// the agent (games_die_with_agent), but killed, so the instances are
// stopped through it first — the worlds, so they save their players, then
// their sidecars.
func (a *agentProc) stop(nc *nats.Conn, worlds []world) {
	a.stopping.Store(true)
	var first, then []string
	for _, w := range worlds {
		first, then = append(first, w.id()), append(then, w.ether())
	}
	a.stopInstances(nc, first)
	a.stopInstances(nc, then)
	if err := terminate(a.cmd.Process.Pid); err != nil && !errors.Is(err, os.ErrProcessDone) {
		a.log.Debug("signal agent", "err", err)
	}
	select {
	case <-a.exited:
	case <-time.After(agentStopBudget):
		a.log.Warn("corrosion-agent did not stop in time; killing it")
		_ = a.cmd.Process.Kill()
		<-a.exited
	}
	a.sweep()
}

// stopInstances sends `stop` with wait to each instance in parallel.
func (a *agentProc) stopInstances(nc *nats.Conn, ids []string) {
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			req, _ := json.Marshal(map[string]any{"func": wire.FuncStop, "wait": true,
				"timeout_seconds": int(instanceStopBudget / time.Second)})
			msg, err := nc.Request(wire.CmdSubject(License, id), req, instanceStopBudget+5*time.Second)
			if err != nil {
				a.log.Warn("stop instance through the agent", "instance", id, "err", err)
				return
			}
			var r struct{ Status, Message string }
			if json.Unmarshal(msg.Data, &r) == nil && r.Status != "success" {
				a.log.Warn("stop instance", "instance", id, "err", r.Message)
			}
		})
	}
	wg.Wait()
}

// sweep kills every game process the agent's state still records as
// running (a stop that failed or timed out), with its process group.
func (a *agentProc) sweep() {
	files, _ := filepath.Glob(filepath.Join(a.stateDir, "instances", "*", "state.json"))
	var pids []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var st struct {
			Process *struct {
				PID int `json:"pid"`
			} `json:"process"`
		}
		if json.Unmarshal(b, &st) == nil && st.Process != nil && st.Process.PID > 0 && alive(st.Process.PID) {
			a.log.Warn("a game process outlived its stop; killing it", "instance", filepath.Base(filepath.Dir(f)), "pid", st.Process.PID)
			killTree(st.Process.PID)
			pids = append(pids, st.Process.PID)
		}
	}
	deadline := time.Now().Add(sweepBudget)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}
