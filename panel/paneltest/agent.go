package paneltest

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
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// AgentInstance is one [[instance]] of a test agent: by default a managed
// tools/fakegame process (knobs in Args) that stops on the stdin line
// "stop".
type AgentInstance struct {
	ID        string
	Game      string   // default "generic"
	Label     string   //
	Args      []string // fakegame flags, e.g. "-stdout-lines", "5"
	Autostart bool     //
	Restart   string   // never | on-crash | always; default "never"
	Unmanaged bool     // no exec: an instance the agent only watches
	RCON      *AgentRCON
	// Extra is raw TOML added to the instance's table (before its RCON
	// subtable), e.g. `depends_on = ["db"]`.
	Extra string
}

// AgentRCON is an instance's [instance.rcon] table.
type AgentRCON struct {
	Kind     string // source | webrcon
	Port     int
	Password string
}

// Agent is a running real corrosion-agent process.
type Agent struct {
	License    string
	Dir        string // the agent's own folder (config, state, roots)
	ConfigPath string

	t       testing.TB // immutable after StartAgent
	bin     string     // immutable after StartAgent
	natsURL string     // immutable after StartAgent

	mu  sync.Mutex
	cmd *exec.Cmd       // guarded by mu; nil while stopped
	out *testbin.Output // guarded by mu
}

// StartAgent runs the real agent binary (heartbeat every second) for
// license against the NATS server at natsURL, managing the instances,
// and waits until it answers ping. It is stopped (SIGTERM) at cleanup and
// the game processes it leaves behind are killed.
func StartAgent(t testing.TB, natsURL, license string, instances ...AgentInstance) *Agent {
	t.Helper()
	return StartAgentWith(t, natsURL, license, "", instances...)
}

// StartAgentWith is StartAgent with agentExtra added to the [agent] table
// (raw TOML, e.g. `public_address = "127.0.0.1"`).
func StartAgentWith(t testing.TB, natsURL, license, agentExtra string, instances ...AgentInstance) *Agent {
	t.Helper()
	a := &Agent{License: license, Dir: t.TempDir(), t: t, natsURL: natsURL,
		bin: testbin.Build(t, "./agent/cmd/corrosion-agent")}
	game := testbin.Build(t, "./tools/fakegame")
	var b strings.Builder
	fmt.Fprintf(&b, `[agent]
license_id = %q
nats_url = %q
heartbeat_seconds = 1
state_dir = %q
restart_backoff_initial = "50ms"
restart_backoff_max = "200ms"
log_level = "debug"
allow_root = true # CI runs the tests as root
%s
`, license, natsURL, filepath.Join(a.Dir, "state"), agentExtra)
	for _, in := range instances {
		a.writeInstance(&b, in, game)
	}
	a.ConfigPath = filepath.Join(a.Dir, "agent.toml")
	if err := os.WriteFile(a.ConfigPath, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.cleanup)
	a.Start()
	return a
}

func (a *Agent) writeInstance(b *strings.Builder, in AgentInstance, game string) {
	root := a.Root(in.ID)
	if err := os.MkdirAll(root, 0o755); err != nil {
		a.t.Fatal(err)
	}
	kind := in.Game
	if kind == "" {
		kind = "generic"
	}
	fmt.Fprintf(b, "\n[[instance]]\nid = %q\ngame = %q\nlabel = %q\nroot = %q\n", in.ID, kind, in.Label, root)
	if !in.Unmanaged {
		restart := in.Restart
		if restart == "" {
			restart = "never"
		}
		args, _ := json.Marshal(append([]string{}, in.Args...))
		fmt.Fprintf(b, "exec = %q\nargs = %s\nstop_command = \"stop\"\nstop_timeout_seconds = 2\nrestart = %q\nautostart = %t\n",
			game, args, restart, in.Autostart)
	}
	if in.Extra != "" {
		b.WriteString(in.Extra + "\n")
	}
	if r := in.RCON; r != nil {
		fmt.Fprintf(b, "[instance.rcon]\nkind = %q\nport = %d\npassword = %q\n", r.Kind, r.Port, r.Password)
	}
}

// Root is an instance's root folder (its files, for the file manager).
func (a *Agent) Root(id string) string { return filepath.Join(a.Dir, "roots", id) }

// Start runs the agent (again, after Stop or Kill) and waits for ping.
func (a *Agent) Start() {
	a.t.Helper()
	a.mu.Lock()
	if a.cmd != nil {
		a.mu.Unlock()
		a.t.Fatal("paneltest: agent already running")
	}
	a.out = &testbin.Output{}
	cmd := exec.Command(a.bin, "run", "--config", a.ConfigPath)
	cmd.Stdout, cmd.Stderr, cmd.Env = a.out, a.out, testbin.Env()
	if err := cmd.Start(); err != nil {
		a.mu.Unlock()
		a.t.Fatalf("paneltest: start agent: %v", err)
	}
	a.cmd = cmd
	a.mu.Unlock()
	nc, err := nats.Connect(a.natsURL)
	if err != nil {
		a.t.Fatalf("paneltest: connect NATS: %v", err)
	}
	defer nc.Close()
	poll.Until(a.t, 20*time.Second, func() error {
		_, err := nc.Request(wire.HostCmdSubject(a.License), []byte(`{"func":"`+wire.FuncPing+`"}`), time.Second)
		if err != nil {
			return fmt.Errorf("agent %s does not answer ping: %w\n%s", a.License, err, a.Output())
		}
		return nil
	})
}

// Stop stops the agent with SIGTERM (it publishes going_offline) and
// waits; its game processes keep running, as in production.
func (a *Agent) Stop() { a.signal(syscall.SIGTERM) }

// Kill stops the agent with SIGKILL: silence, no beacon.
func (a *Agent) Kill() { a.signal(syscall.SIGKILL) }

func (a *Agent) signal(sig syscall.Signal) {
	a.t.Helper()
	a.mu.Lock()
	cmd := a.cmd
	a.cmd = nil
	a.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		a.t.Errorf("paneltest: agent did not exit on %v", sig)
	}
}

// Output is what the agent printed (its log).
func (a *Agent) Output() string {
	a.mu.Lock()
	out := a.out
	a.mu.Unlock()
	if out == nil {
		return ""
	}
	return out.String()
}

// cleanup stops the agent and kills the game processes it left behind
// (they outlive the agent by design).
func (a *Agent) cleanup() {
	a.Stop()
	if a.t.Failed() {
		a.t.Logf("agent %s output:\n%s", a.License, a.Output())
	}
	matches, _ := filepath.Glob(filepath.Join(a.Dir, "state", "instances", "*", "state.json"))
	for _, m := range matches {
		var st struct {
			Process *struct{ PID int } `json:"process"`
		}
		if b, err := os.ReadFile(m); err == nil && json.Unmarshal(b, &st) == nil && st.Process != nil && st.Process.PID > 0 {
			killTree(st.Process.PID)
		}
	}
}
