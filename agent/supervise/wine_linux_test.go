//go:build linux

package supervise

// The Windows build of the agent, run under wine against an embedded NATS
// server: heartbeat, start, console, send, stop, and a game surviving a
// kill of the agent and adopted by the next one (job, stdin pipe). The
// Windows-specific code of this package (proc_windows.go, job_windows.go,
// stdin_windows.go, ctrlbreak_windows.go) runs for real here, on wine's
// implementation of those calls, not Windows'.
//
// Debian 12's wine 8.0 has no bcryptprimitives.dll, which every Go ≥ 1.24
// Windows binary loads before main (ProcessPrng): the test builds a
// stand-in exporting ProcessPrng (over RtlGenRandom) with mingw-w64 into
// the test's own wine prefix.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

// bcryptPrimitivesC is the stand-in for wine 8.0's missing DLL.
const bcryptPrimitivesC = `#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!SystemFunction036(data, n)) return FALSE;
		data += n; len -= n;
	}
	return TRUE;
}
`

// wineTools are the programs the test needs (Debian: wine, wine64,
// gcc-mingw-w64-x86-64-win32).
var wineTools = []string{"wine", "wineserver", "x86_64-w64-mingw32-gcc"}

// wineEnv is a wine prefix of the test's own.
type wineEnv struct {
	prefix string
}

func (w *wineEnv) env() []string {
	return append(os.Environ(), "WINEPREFIX="+w.prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=")
}

// newWine makes a prefix with the ProcessPrng stand-in; wineserver (and
// every process of the prefix, games included) is killed at cleanup.
func newWine(t *testing.T) *wineEnv {
	t.Helper()
	for _, tool := range wineTools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is missing: CI must install wine, wine64 and gcc-mingw-w64-x86-64-win32", tool)
			}
			t.Skipf("%s is not installed (Debian: apt-get install wine wine64 gcc-mingw-w64-x86-64-win32); CI runs this", tool)
		}
	}
	w := &wineEnv{prefix: filepath.Join(t.TempDir(), "prefix")}
	t.Cleanup(func() {
		cmd := exec.Command("wineserver", "-k")
		cmd.Env = w.env()
		_ = cmd.Run()
	})
	boot := exec.Command("wineboot", "--init")
	boot.Env = w.env()
	if out, err := boot.CombinedOutput(); err != nil {
		t.Fatalf("wineboot: %v\n%s", err, out)
	}
	src := filepath.Join(t.TempDir(), "bcryptprimitives.c")
	if err := os.WriteFile(src, []byte(bcryptPrimitivesC), 0o644); err != nil {
		t.Fatal(err)
	}
	dll := filepath.Join(w.prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	gcc := exec.Command("x86_64-w64-mingw32-gcc", "-shared", "-O2", "-o", dll, src, "-ladvapi32")
	if out, err := gcc.CombinedOutput(); err != nil {
		t.Fatalf("build bcryptprimitives.dll: %v\n%s", err, out)
	}
	return w
}

// buildWindows cross-builds the main package pkg for windows/amd64.
func buildWindows(t *testing.T, pkg, dir string) string {
	t.Helper()
	out := filepath.Join(dir, filepath.Base(pkg)+".exe")
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = moduleRoot(t)
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s for windows: %v\n%s", pkg, err, b)
	}
	return out
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(b)))
}

// winPath is p as wine's Z: drive shows it.
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// winePanel watches what the agent publishes, as the panel would.
type winePanel struct {
	t        *testing.T
	nc       *nats.Conn
	instance string

	mu         sync.Mutex
	heartbeats int             // guarded by mu
	states     []string        // guarded by mu; of instance "game"
	lines      []string        // guarded by mu; console of instance "game"
	lastEvent  wire.StateEvent // guarded by mu
}

const wineLicense = "wine-lic"

func newWinePanel(t *testing.T, nc *nats.Conn, instance string) *winePanel {
	p := &winePanel{t: t, nc: nc, instance: instance}
	subs := map[string]func(*nats.Msg){
		wire.HeartbeatSubject(wineLicense): func(*nats.Msg) { p.mu.Lock(); p.heartbeats++; p.mu.Unlock() },
		wire.StatusSubject(wineLicense, instance): func(m *nats.Msg) {
			var ev wire.StatusEvent
			if json.Unmarshal(m.Data, &ev) == nil {
				p.mu.Lock()
				p.states, p.lastEvent = append(p.states, string(ev.Event.State)), ev.Event
				p.mu.Unlock()
			}
		},
		wire.ConsoleSubject(wineLicense, instance): func(m *nats.Msg) {
			var cm wire.ConsoleMessage
			if json.Unmarshal(m.Data, &cm) == nil {
				p.mu.Lock()
				for _, l := range cm.Lines {
					p.lines = append(p.lines, l.Text)
				}
				p.mu.Unlock()
			}
		},
	}
	for subj, fn := range subs {
		if _, err := nc.Subscribe(subj, fn); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return p
}

// call sends an instance command and fails unless it succeeds.
func (p *winePanel) call(body string) map[string]any {
	p.t.Helper()
	m, err := p.nc.Request(wire.CmdSubject(wineLicense, p.instance), []byte(body), 20*time.Second)
	if err != nil {
		p.t.Fatalf("request %s: %v", body, err)
	}
	var rep map[string]any
	if err := json.Unmarshal(m.Data, &rep); err != nil || rep["status"] != "success" {
		p.t.Fatalf("request %s: %s", body, m.Data)
	}
	return rep
}

func (p *winePanel) waitLine(sub string) {
	p.t.Helper()
	poll.True(p.t, 30*time.Second, "console line "+sub, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, l := range p.lines {
			if strings.Contains(l, sub) {
				return true
			}
		}
		return false
	})
}

// forget drops the last state event, so waitState waits for a new one.
func (p *winePanel) forget() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastEvent = wire.StateEvent{}
}

func (p *winePanel) console() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

func (p *winePanel) waitState(state string) wire.StateEvent {
	p.t.Helper()
	var ev wire.StateEvent
	poll.True(p.t, 60*time.Second, "state "+state, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		ev = p.lastEvent
		return string(ev.State) == state
	})
	return ev
}

// wineAgent is the Windows agent running under wine.
type wineAgent struct {
	cmd *exec.Cmd
	log string // its stdout and stderr: a file, since the processes it starts inherit the descriptors
}

func startWineAgent(t *testing.T, w *wineEnv, exe, cfg string) *wineAgent {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "agent-*.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := &wineAgent{cmd: exec.Command("wine", exe, "run", "--config", winPath(cfg)), log: f.Name()}
	a.cmd.Env = w.env()
	a.cmd.Stdout, a.cmd.Stderr = f, f
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a.kill()
		if t.Failed() {
			b, _ := os.ReadFile(a.log)
			t.Logf("agent output:\n%s", b)
		}
	})
	return a
}

// kill ends the agent's process at once; its games outlive it.
func (a *wineAgent) kill() {
	if a.cmd.ProcessState == nil {
		_ = a.cmd.Process.Kill()
		_ = a.cmd.Wait()
	}
}

// wineConfig is the agent's config: "game" stops with a stop_command,
// "breakgame" with CTRL_BREAK, "treegame" starts a grandchild.
const wineConfig = `[agent]
license_id = %q
nats_url = %q
heartbeat_seconds = 1
state_dir = '%s'
log_level = "debug"

[[instance]]
id = "game"
game = "generic"
root = '%[4]s'
exec = '%[5]s'
stop_command = "stop"
restart = "never"
stop_timeout_seconds = 30

[[instance]]
id = "breakgame"
game = "generic"
root = '%[4]s'
exec = '%[5]s'
args = ["-stop-line", ""]
restart = "never"
stop_timeout_seconds = 3

[[instance]]
id = "treegame"
game = "generic"
root = '%[4]s'
exec = '%[5]s'
args = ["-spawn-child"]
restart = "never"
stop_timeout_seconds = 3
`

// gameProcesses counts the processes running the game binary: wine shows
// a Windows process's command line, the exe's Windows path first, in /proc.
func gameProcesses(exe string) int {
	n := 0
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, c := range cmdlines {
		if b, err := os.ReadFile(c); err == nil && strings.HasPrefix(string(b), winPath(exe)+"\x00") {
			n++
		}
	}
	return n
}

// wineHost is a wine prefix with the Windows agent and fake game built,
// an embedded NATS server, the agent's config and a panel watching "game".
type wineHost struct {
	w                 *wineEnv
	agentExe, gameExe string
	cfg               string // the config file; the state and game roots are beside it
	nc                *nats.Conn
	panel             *winePanel
}

func newWineHost(t *testing.T) *wineHost {
	t.Helper()
	h := &wineHost{w: newWine(t)}
	bin := t.TempDir()
	h.agentExe = buildWindows(t, "./agent/cmd/corrosion-agent", bin)
	h.gameExe = buildWindows(t, "./tools/fakegame", bin)
	ns := natstest.Start(t)
	h.nc = ns.Connect(t)
	h.panel = newWinePanel(t, h.nc, "game")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "root"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.cfg = filepath.Join(dir, "agent.toml")
	err := os.WriteFile(h.cfg, []byte(fmt.Sprintf(wineConfig, wineLicense, ns.URL(), winPath(filepath.Join(dir, "state")),
		winPath(filepath.Join(dir, "root")), winPath(h.gameExe))), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestWindowsAgentUnderWine(t *testing.T) {
	h := newWineHost(t)
	w, agentExe, gameExe, cfg, nc, p := h.w, h.agentExe, h.gameExe, h.cfg, h.nc, h.panel
	dir := filepath.Dir(cfg)
	a := startWineAgent(t, w, agentExe, cfg)
	poll.True(t, 60*time.Second, "a heartbeat", func() bool { p.mu.Lock(); defer p.mu.Unlock(); return p.heartbeats > 0 })

	// Start, console, send: the game's stdin is the named pipe.
	p.call(`{"func":"start"}`)
	running := p.waitState("running")
	p.waitLine("fakegame starting")
	p.call(`{"func":"send","command":"hello"}`)
	p.waitLine("echo: hello")

	// The game outlives a kill of the agent; the next agent adopts it and
	// takes its console input back out of it.
	a.kill()
	p.forget()
	startWineAgent(t, w, agentExe, cfg)
	if adopted := p.waitState("running"); adopted.PID != running.PID || adopted.Message != "adopted" {
		t.Fatalf("after the agent's kill: %+v, want pid %d adopted", adopted, running.PID)
	}
	p.call(`{"func":"send","command":"after the restart"}`)
	p.waitLine("echo: after the restart")

	// stop_command through that input: a graceful stop, no console needed.
	p.call(`{"func":"stop"}`)
	p.waitState("stopped")
	p.waitLine("stop line received, shutting down")

	t.Run("ctrl-break", func(t *testing.T) { wineCtrlBreak(t, nc) })
	t.Run("kill the tree", func(t *testing.T) { wineKillTree(t, nc, gameExe, filepath.Join(dir, "state")) })
}

// wineCtrlBreak stops a game without stop_command: CTRL_BREAK, or the kill
// after the stop timeout when the signal cannot be delivered.
func wineCtrlBreak(t *testing.T, nc *nats.Conn) {
	p := newWinePanel(t, nc, "breakgame")
	p.call(`{"func":"start"}`)
	p.waitState("running")
	p.waitLine("fakegame starting")
	p.call(`{"func":"stop"}`)
	ev := p.waitState("stopped")
	con := p.console()
	switch {
	case strings.Contains(con, "got interrupt, shutting down"):
		t.Logf("CTRL_BREAK reached the game (exit code %s)", codeText(ev.ExitCode))
	case strings.Contains(con, "stop signal failed") && strings.Contains(con, "killing the process tree"):
		t.Logf("CTRL_BREAK could not be delivered; the tree was killed after the stop timeout:\n%s", con)
	default:
		t.Fatalf("stopped (exit code %s) neither by CTRL_BREAK nor by the timeout kill:\n%s", codeText(ev.ExitCode), con)
	}
}

// wineKillTree kills a game that started a grandchild: the job takes both.
func wineKillTree(t *testing.T, nc *nats.Conn, gameExe, stateDir string) {
	p := newWinePanel(t, nc, "treegame")
	p.call(`{"func":"start"}`)
	p.waitState("running")
	p.waitLine("child pid")
	poll.True(t, 20*time.Second, "the game and its child running", func() bool { return gameProcesses(gameExe) == 2 })
	b, err := os.ReadFile(filepath.Join(stateDir, "instances", "treegame", stdinRecordFile))
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := parseStdinRecord(b); err != nil || rec.JobError != "" {
		t.Fatalf("the game has no job object: %v %s", err, b)
	}
	p.call(`{"func":"kill"}`)
	p.waitState("stopped")
	poll.True(t, 20*time.Second, "no game process left", func() bool { return gameProcesses(gameExe) == 0 })
}

// keepAlive runs a program of no interest in the prefix for the rest of
// the test: wine ends its services (the agent among them) when the last
// ordinary process of the prefix exits, as each wine command here does.
func (w *wineEnv) keepAlive(t *testing.T, gameExe string) {
	t.Helper()
	keeper := filepath.Join(t.TempDir(), "keeper.exe")
	b, err := os.ReadFile(gameExe)
	if err == nil {
		err = os.WriteFile(keeper, b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("wine", keeper, "-banner", "")
	cmd.Env = w.env()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
}

// run runs a Windows program under wine and returns its output. The
// output goes through a file: a pipe would stay open as long as any
// process wine starts meanwhile (its server, its services) lives.
func (w *wineEnv) run(t *testing.T, exe string, args ...string) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "out-*.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("wine", append([]string{exe}, args...)...)
	cmd.Env = w.env()
	cmd.Stdout, cmd.Stderr = f, f
	err = cmd.Run()
	out, _ := os.ReadFile(f.Name())
	if err != nil {
		t.Fatalf("wine %s %q: %v\n%s", filepath.Base(exe), args, err, out)
	}
	return string(out)
}

// The agent as a Windows service, under wine's service manager: install
// registers and starts it with a config that validates, the service
// process (svc.Run) heartbeats and runs a game, a new binary's install
// restarts it and the game is adopted, uninstall stops and deletes it and
// the game keeps running.
func TestWindowsServiceUnderWine(t *testing.T) {
	h := newWineHost(t)
	w, agentExe, gameExe, cfg, p := h.w, h.agentExe, h.gameExe, h.cfg, h.panel
	w.keepAlive(t, gameExe)
	out := w.run(t, agentExe, "install", "--config", winPath(cfg))
	for _, want := range []string{`install ` + winPath(agentExe) + ` as C:\Program Files\Corrosion\corrosion-agent.exe`,
		"ok   config " + winPath(cfg) + " validates", "register service corrosion-agent: ",
		"register Event Log source corrosion-agent", "start service corrosion-agent"} {
		if !strings.Contains(out, want) {
			t.Fatalf("install output lacks %q:\n%s", want, out)
		}
	}
	poll.True(t, 60*time.Second, "a heartbeat from the service", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.heartbeats > 0
	})
	if st := w.run(t, agentExe, "service-status"); !strings.Contains(st, "service corrosion-agent: running") {
		t.Fatalf("service-status:\n%s", st)
	}
	p.call(`{"func":"start"}`)
	running := p.waitState("running")
	p.call(`{"func":"send","command":"from the service"}`)
	p.waitLine("echo: from the service")

	wineUpgrade(t, w, p, agentExe, cfg, running.PID)

	out = w.run(t, agentExe, "uninstall", "--config", winPath(cfg))
	for _, want := range []string{"stop service corrosion-agent (game servers keep running)",
		"delete service corrosion-agent", "remove Event Log source corrosion-agent", "keep " + winPath(cfg)} {
		if !strings.Contains(out, want) {
			t.Fatalf("uninstall output lacks %q:\n%s", want, out)
		}
	}
	if n := gameProcesses(gameExe); n != 1 {
		t.Fatalf("%d game processes after the service was stopped and removed, want 1 (it keeps running)", n)
	}
	if st := w.run(t, agentExe, "service-status"); !strings.Contains(st, "service corrosion-agent: not installed") {
		t.Fatalf("service-status after uninstall:\n%s", st)
	}
	if _, err := os.Stat(cfg); err != nil {
		t.Fatalf("uninstall removed the config: %v", err)
	}
}

// wineUpgrade installs another build of the agent over the running
// service: the install replaces the binary and restarts the service, and
// the game (pid) keeps running, is adopted and takes input.
func wineUpgrade(t *testing.T, w *wineEnv, p *winePanel, agentExe, cfg string, pid int) {
	t.Helper()
	v2 := filepath.Join(t.TempDir(), "corrosion-agent-v2.exe")
	b, err := os.ReadFile(agentExe)
	if err == nil {
		err = os.WriteFile(v2, append(b, "v2"...), 0o755) // other bytes, the same program
	}
	if err != nil {
		t.Fatal(err)
	}
	p.forget()
	out := w.run(t, v2, "install", "--config", winPath(cfg))
	if !strings.Contains(out, "restart service corrosion-agent (its binary or configuration changed; game servers keep running)") {
		t.Fatalf("upgrade output:\n%s", out)
	}
	if adopted := p.waitState("running"); adopted.PID != pid || adopted.Message != "adopted" {
		t.Fatalf("after the upgrade: %+v, want pid %d adopted", adopted, pid)
	}
	p.call(`{"func":"send","command":"after the upgrade"}`)
	p.waitLine("echo: after the upgrade")
}
