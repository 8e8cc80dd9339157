package agent_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

const license = "test-lic"

// harness runs the real corrosion-agent binary against an embedded NATS
// server and watches everything it publishes, as the panel would.
type harness struct {
	t          testing.TB
	ns         *natstest.Server
	nc         *nats.Conn
	bin        string
	game       string // fake game binary
	dir        string
	cfgPath    string
	agent      *exec.Cmd
	agentOut   *testbin.Output
	consoleSub *nats.Subscription

	mu         sync.Mutex
	status     map[string][]wire.StateEvent  // guarded by mu
	console    map[string][]wire.ConsoleLine // guarded by mu
	heartbeats []wire.Heartbeat              // guarded by mu
	hbTimes    []time.Time                   // guarded by mu
	offline    int                           // guarded by mu
}

// newHarness writes a config with the given [[instance]] TOML (where
// {{game}} is the fake game binary and {{root}} a fresh root dir) and
// starts the agent.
func newHarness(t testing.TB, heartbeatSeconds int, instances string) *harness {
	t.Helper()
	h := prepareHarness(t, heartbeatSeconds, instances, "")
	h.startAgent()
	return h
}

// prepareHarness writes the config (extra goes into [agent]; allow_root =
// true unless extra sets it) but starts no agent.
func prepareHarness(t testing.TB, heartbeatSeconds int, instances, extra string) *harness {
	t.Helper()
	h := &harness{t: t, ns: natstest.Start(t), dir: t.TempDir(),
		bin:    testbin.Build(t, "./agent/cmd/corrosion-agent"),
		game:   testbin.Build(t, "./tools/fakegame"),
		status: map[string][]wire.StateEvent{}, console: map[string][]wire.ConsoleLine{}}
	h.nc = h.ns.Connect(t, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	h.watch()
	root := filepath.Join(h.dir, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(extra, "allow_root") {
		extra = "allow_root = true # tests run as root in CI\n" + extra
	}
	instances = strings.ReplaceAll(instances, "{{game}}", h.game)
	instances = strings.ReplaceAll(instances, "{{root}}", root)
	cfg := fmt.Sprintf(`[agent]
license_id = %q
nats_url = %q
heartbeat_seconds = %d
state_dir = %q
restart_backoff_initial = "50ms"
restart_backoff_max = "200ms"
crash_loop_count = 4
crash_loop_window = "1m"
log_level = "debug"
%s

[[probe]]
name = "nats"
host = "127.0.0.1"
port = %d

%s`, license, h.ns.URL(), heartbeatSeconds, filepath.Join(h.dir, "state"), extra, h.ns.Port(), instances)
	h.cfgPath = filepath.Join(h.dir, "agent.toml")
	if err := os.WriteFile(h.cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.cleanup)
	return h
}

func (h *harness) watch() {
	sub := func(subject string, fn func(m *nats.Msg)) *nats.Subscription {
		s, err := h.nc.Subscribe(subject, fn)
		if err != nil {
			h.t.Fatal(err)
		}
		return s
	}
	sub("corrosion."+license+".*.status", func(m *nats.Msg) {
		var ev wire.StatusEvent
		if json.Unmarshal(m.Data, &ev) == nil {
			h.mu.Lock()
			h.status[ev.InstanceID] = append(h.status[ev.InstanceID], ev.Event)
			h.mu.Unlock()
		}
	})
	h.consoleSub = sub("corrosion."+license+".*.console", func(m *nats.Msg) {
		var cm wire.ConsoleMessage
		if json.Unmarshal(m.Data, &cm) == nil {
			h.mu.Lock()
			h.console[cm.InstanceID] = append(h.console[cm.InstanceID], cm.Lines...)
			h.mu.Unlock()
		}
	})
	sub(wire.HeartbeatSubject(license), func(m *nats.Msg) {
		var hb wire.Heartbeat
		if err := json.Unmarshal(m.Data, &hb); err != nil {
			h.t.Errorf("heartbeat is not JSON: %v", err)
			return
		}
		h.mu.Lock()
		h.heartbeats = append(h.heartbeats, hb)
		h.hbTimes = append(h.hbTimes, time.Now())
		h.mu.Unlock()
	})
	sub(wire.GoingOfflineSubject(license), func(m *nats.Msg) {
		h.mu.Lock()
		h.offline++
		h.mu.Unlock()
	})
	if err := h.nc.Flush(); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) startAgent() {
	h.t.Helper()
	h.launch()
	h.waitReady()
}

// launch starts the agent process without waiting for it.
func (h *harness) launch() {
	h.t.Helper()
	h.agentOut = &testbin.Output{}
	h.agent = exec.Command(h.bin, "run", "--config", h.cfgPath)
	h.agent.Stdout, h.agent.Stderr = h.agentOut, h.agentOut
	h.agent.Env = testbin.Env()
	if err := h.agent.Start(); err != nil {
		h.t.Fatal(err)
	}
}

// waitReady waits until the agent answers ping.
func (h *harness) waitReady() {
	h.t.Helper()
	poll.Until(h.t, 15*time.Second, func() error {
		_, err := h.request(wire.HostCmdSubject(license), `{"func":"ping"}`)
		return err
	})
}

// stopAgent stops the agent with SIGTERM (or SIGKILL) and waits.
func (h *harness) stopAgent(sig syscall.Signal) {
	h.t.Helper()
	if h.agent == nil {
		return
	}
	_ = h.agent.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- h.agent.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = h.agent.Process.Kill()
		h.t.Errorf("agent did not exit on %v", sig)
	}
	h.agent = nil
}

func (h *harness) cleanup() {
	h.stopAgent(syscall.SIGTERM)
	if h.t.Failed() {
		h.t.Logf("agent output:\n%s", h.agentOut.String())
	}
	// Game processes outlive the agent by design: kill what is left.
	matches, _ := filepath.Glob(filepath.Join(h.dir, "state", "instances", "*", "state.json"))
	for _, m := range matches {
		var p struct {
			Process *struct{ PID int } `json:"process"`
		}
		if b, err := os.ReadFile(m); err == nil && json.Unmarshal(b, &p) == nil && p.Process != nil {
			killLeftover(p.Process.PID)
		}
	}
}

// request sends a request and returns the raw reply.
func (h *harness) request(subject, body string) ([]byte, error) {
	m, err := h.nc.Request(subject, []byte(body), 5*time.Second)
	if err != nil {
		return nil, err
	}
	return m.Data, nil
}

// call sends a request and decodes the reply into a generic map.
func (h *harness) call(subject, body string) map[string]any {
	h.t.Helper()
	b, err := h.request(subject, body)
	if err != nil {
		h.t.Fatalf("request %s %s: %v", subject, body, err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		h.t.Fatalf("reply is not a JSON object: %s", b)
	}
	return out
}

func (h *harness) cmd(instance, body string) map[string]any {
	h.t.Helper()
	return h.call(wire.CmdSubject(license, instance), body)
}

// mustOK fails unless the reply is a success.
func (h *harness) mustOK(rep map[string]any) map[string]any {
	h.t.Helper()
	if rep["status"] != "success" {
		h.t.Fatalf("want success, got %v", rep)
	}
	return rep
}

// mustErr fails unless the reply is an error with code.
func (h *harness) mustErr(rep map[string]any, code string) string {
	h.t.Helper()
	if rep["status"] != "error" || rep["code"] != code {
		h.t.Fatalf("want error %s, got %v", code, rep)
	}
	msg, _ := rep["message"].(string)
	if msg == "" {
		h.t.Fatalf("error without message: %v", rep)
	}
	return msg
}

func (h *harness) states(id string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.status[id] {
		out = append(out, string(e.State))
	}
	return out
}

func (h *harness) events(id string) []wire.StateEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]wire.StateEvent(nil), h.status[id]...)
}

func (h *harness) resetEvents() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.status = map[string][]wire.StateEvent{}
	h.console = map[string][]wire.ConsoleLine{}
}

func (h *harness) hasLine(id, sub string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range h.console[id] {
		if strings.Contains(l.Text, sub) {
			return true
		}
	}
	return false
}

func (h *harness) waitLine(id, sub string) {
	h.t.Helper()
	poll.True(h.t, 10*time.Second, fmt.Sprintf("console line %q on %s", sub, id), func() bool { return h.hasLine(id, sub) })
}

func (h *harness) waitState(id, state string) map[string]any {
	h.t.Helper()
	var rep map[string]any
	poll.Until(h.t, 15*time.Second, func() error {
		rep = h.cmd(id, `{"func":"status"}`)
		if rep["state"] != state {
			return fmt.Errorf("%s is %v, want %s (events %v)", id, rep["state"], state, h.states(id))
		}
		return nil
	})
	return rep
}

func (h *harness) heartbeatCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.heartbeats)
}

func (h *harness) lastHeartbeat() wire.Heartbeat {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.heartbeats[len(h.heartbeats)-1]
}

// processGone reports whether pid has exited. An orphaned game whose new
// parent does not reap it stays a zombie, which kill(pid, 0) still finds.
func processGone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] == 'Z'
}
