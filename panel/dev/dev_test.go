//go:build unix

package dev_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/shirou/gopsutil/v4/process"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
	"github.com/corrosion/corrosion/panel/dev"
)

// banner is what the test reads from dev's stdout.
type banner struct {
	password   string
	worldPorts []int
	pgPort     int
	agentLog   string
}

var (
	passwordRE = regexp.MustCompile(`username: admin  password: (\S+)`)
	worldRE    = regexp.MustCompile(`world \d+ +http://127\.0\.0\.1:(\d+)/client\?world=\d+`)
	pgRE       = regexp.MustCompile(`Postgres +postgres://postgres@127\.0\.0\.1:(\d+)/`)
	agentLogRE = regexp.MustCompile(`agent log (\S+)`)
)

func parseBanner(out string) (banner, error) {
	var b banner
	m := passwordRE.FindStringSubmatch(out)
	pg := pgRE.FindStringSubmatch(out)
	al := agentLogRE.FindStringSubmatch(out)
	if m == nil || pg == nil || al == nil || !strings.Contains(out, "Ctrl-C stops everything.") {
		return b, errors.New("no complete banner yet")
	}
	b.password, b.agentLog = m[1], al[1]
	b.pgPort, _ = strconv.Atoi(pg[1])
	for _, w := range worldRE.FindAllStringSubmatch(out, -1) {
		p, _ := strconv.Atoi(w[1])
		b.worldPorts = append(b.worldPorts, p)
	}
	if len(b.worldPorts) != 2 {
		return b, fmt.Errorf("want 2 world URLs, got %d", len(b.worldPorts))
	}
	return b, nil
}

// devRun is one `corrosion-panel dev` started by a test.
type devRun struct {
	cmd             *exec.Cmd
	exited          chan error
	panelPort, nats int
	b               banner
	panel           string // http://127.0.0.1:port
	stdout, stderr  *testbin.Output
}

// startDev runs the built `corrosion-panel dev` as a user would (free
// ports) and waits for its banner, the panel and both worlds with their
// sidecar links up.
func startDev(t *testing.T) *devRun {
	t.Helper()
	bin := testbin.Build(t, "./panel/cmd/corrosion-panel")
	for _, pkg := range []string{"./agent/cmd/corrosion-agent", "./ether/cmd/ether", "./worldsrv/cmd/worldsrv"} {
		testbin.Build(t, pkg) // next to corrosion-panel: dev finds them there
	}
	d := &devRun{panelPort: natstest.FreePort(t), nats: natstest.FreePort(t), exited: make(chan error, 1),
		stdout: &testbin.Output{}, stderr: &testbin.Output{}}
	d.panel = fmt.Sprintf("http://127.0.0.1:%d", d.panelPort)
	d.cmd = exec.Command(bin, "dev", "--listen", fmt.Sprintf("127.0.0.1:%d", d.panelPort),
		"--nats-port", strconv.Itoa(d.nats), "--world-ports", "free")
	d.cmd.Env = withoutDatabaseURL(testbin.Env())
	// A process group of its own, as a shell gives a foreground job: the
	// Ctrl-C of the test goes to the whole group (dev and the Postgres it
	// started), as a terminal's does.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	d.cmd.Stdout, d.cmd.Stderr = d.stdout, d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() {
		d.exited <- d.cmd.Wait()
		close(waited)
	}()
	t.Cleanup(func() {
		stopOnFailure(t, d.cmd, waited)
		if t.Failed() {
			t.Logf("dev stdout:\n%s\ndev stderr:\n%s", d.stdout.String(), d.stderr.String())
		}
	})
	poll.Until(t, 90*time.Second, func() error {
		select {
		case <-waited:
			t.Fatalf("dev exited while starting:\n%s", d.stderr.String())
		default:
		}
		var err error
		d.b, err = parseBanner(d.stdout.String())
		return err
	})
	waitUp(t, d.panel, d.b.worldPorts)
	return d
}

// ports are every port dev's run held that the test knows.
func (d *devRun) ports() []int {
	return append([]int{d.panelPort, d.nats, d.b.pgPort}, d.b.worldPorts...)
}

// TestDevRunsTheWholeSystemAndLeavesNothing: the panel and both worlds
// come up, the printed password logs in, both worlds are on the demo
// host, RCON reaches a world; then Ctrl-C: every child process gone,
// every port free, the temporary directory removed.
func TestDevRunsTheWholeSystemAndLeavesNothing(t *testing.T) {
	d := startDev(t)
	hc := login(t, d.panel, d.b.password)
	poll.Until(t, 30*time.Second, func() error {
		if code, body := get(hc, d.panel+"/"); code != http.StatusOK || !strings.Contains(body, "/hosts/demo") {
			return fmt.Errorf("fleet page: %d, host demo not listed yet", code)
		}
		code, body := get(hc, d.panel+"/hosts/demo")
		if code != http.StatusOK || !strings.Contains(body, "world10") || !strings.Contains(body, "world11") {
			return fmt.Errorf("host page: %d, world10 and world11 not both listed yet", code)
		}
		return nil
	})
	rconStatus(t, d.nats)
	children := descendants(t, d.cmd.Process.Pid)
	if len(children) < 5 { // agent, 2 ethers, 2 worlds (and Postgres)
		t.Fatalf("dev has %d descendant processes, want the agent, two ethers, two worlds and Postgres", len(children))
	}
	// No secret on a command line, which every local user can read.
	for _, c := range children {
		line, _ := c.Cmdline()
		for _, flag := range []string{"--rcon-password", "--db-pass", "--link-token", "--database-url", "--nats-password", "--nats-token"} {
			if strings.Contains(line, flag+" ") || strings.Contains(line, flag+"=") {
				t.Errorf("a secret on a command line (%s): %s", flag, line)
			}
		}
	}
	if err := syscall.Kill(-d.cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	checkGone(t, d, children, true)
}

// TestDevStopsEverythingWhenTheAgentDies: dev notices a killed agent, says
// so, and stops the rest; the demo games die with the agent
// (games_die_with_agent), and dev's sweep of their recorded PIDs would
// catch any that did not.
func TestDevStopsEverythingWhenTheAgentDies(t *testing.T) {
	d := startDev(t)
	children := descendants(t, d.cmd.Process.Pid)
	var agent *process.Process
	for _, c := range children {
		if line, _ := c.Cmdline(); strings.Contains(line, "corrosion-agent run") {
			agent = c
		}
	}
	if agent == nil {
		t.Fatal("no corrosion-agent below dev")
	}
	if err := agent.Kill(); err != nil {
		t.Fatal(err)
	}
	checkGone(t, d, children, false)
	if !strings.Contains(d.stdout.String(), "corrosion-agent exited on its own") {
		t.Errorf("dev did not say the agent died:\n%s", d.stdout.String())
	}
}

// TestDevKilledLeavesNothing: a dev killed with SIGKILL (a closed
// terminal, a crashed IDE) cannot stop anything itself; its agent dies
// with it and the demo games with the agent, so within a deadline every
// child process is gone and every port free.
func TestDevKilledLeavesNothing(t *testing.T) {
	d := startDev(t)
	children := descendants(t, d.cmd.Process.Pid)
	if len(children) < 5 {
		t.Fatalf("dev has %d descendant processes, want the agent, two ethers, two worlds and Postgres", len(children))
	}
	t.Cleanup(func() {
		for _, c := range children { // a failed run's leftovers, not the next test's problem
			_ = c.Kill()
		}
		os.RemoveAll(filepath.Dir(d.b.agentLog)) // a killed dev cannot remove it
	})
	if err := d.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-d.exited
	poll.Until(t, 30*time.Second, func() error {
		for _, c := range children {
			if running, err := c.IsRunning(); err == nil && running {
				line, _ := c.Cmdline()
				return fmt.Errorf("process %d (%s) is still running after kill -9 of dev", c.Pid, line)
			}
		}
		for _, p := range d.ports() {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				return fmt.Errorf("port %d is still taken after kill -9 of dev: %v", p, err)
			}
			l.Close()
		}
		return nil
	})
}

// TestDevNamesTheProcessHoldingAPort: a port dev needs is taken (here by
// this test): dev says in one line which port, for what, and which
// process holds it, and exits 1 without starting anything.
func TestDevNamesTheProcessHoldingAPort(t *testing.T) {
	bin := testbin.Build(t, "./panel/cmd/corrosion-panel")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	cmd := exec.Command(bin, "dev", "--listen", fmt.Sprintf("127.0.0.1:%d", natstest.FreePort(t)),
		"--nats-port", strconv.Itoa(taken), "--world-ports", "free")
	cmd.Env = withoutDatabaseURL(testbin.Env())
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("dev with its NATS port taken: %v, want exit 1; stderr %q", err, stderr.String())
	}
	want := fmt.Sprintf("corrosion-panel dev: 127.0.0.1:%d (NATS) is held by pid %d (%s): "+
		"is another `make run` or server running? stop it or pass --nats-port\n", taken, os.Getpid(), os.Args[0])
	if stderr.String() != want {
		t.Errorf("stderr:\n%q\nwant\n%q", stderr.String(), want)
	}
	if stdout.Len() != 0 {
		t.Errorf("dev printed %q before refusing", stdout.String())
	}
}

// checkGone waits for dev to exit (0 after Ctrl-C, else an error), then
// checks that no child is left, every port is free and the temporary
// directory is gone.
func checkGone(t *testing.T, d *devRun, children []*process.Process, wantClean bool) {
	t.Helper()
	select {
	case err := <-d.exited:
		if wantClean && err != nil {
			t.Errorf("dev after Ctrl-C: %v, want exit 0", err)
		}
		if !wantClean && err == nil {
			t.Errorf("dev exited 0 after its agent died; want a failure")
		}
	case <-time.After(90 * time.Second):
		t.Fatal("dev did not stop within 90 s")
	}
	poll.Until(t, 10*time.Second, func() error {
		for _, c := range children {
			if running, err := c.IsRunning(); err == nil && running {
				line, _ := c.Cmdline()
				return fmt.Errorf("process %d (%s) is still running", c.Pid, line)
			}
		}
		return nil
	})
	for _, p := range d.ports() {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			t.Errorf("port %d is still taken after dev stopped: %v", p, err)
			continue
		}
		l.Close()
	}
	if _, err := os.Stat(filepath.Dir(d.b.agentLog)); !os.IsNotExist(err) {
		t.Errorf("dev's temporary directory %s is left behind (%v)", filepath.Dir(d.b.agentLog), err)
	}
}

// stopOnFailure stops a dev the test left running (it failed before its
// Ctrl-C) the way a user would, so its games do not outlive the test: a
// killed dev cannot stop them (the agent leaves its games running).
func stopOnFailure(t *testing.T, cmd *exec.Cmd, waited <-chan struct{}) {
	select {
	case <-waited:
		return
	default:
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-waited:
	case <-time.After(60 * time.Second):
		t.Errorf("dev did not stop within 60 s of SIGINT; killing it")
		_ = cmd.Process.Kill()
	}
}

// rconStatus sends `status` to world10 over RCON through the agent: the
// generated [instance.rcon] matches the world's --rcon-password.
func rconStatus(t *testing.T, natsPort int) {
	t.Helper()
	nc, err := nats.Connect(fmt.Sprintf("nats://127.0.0.1:%d", natsPort))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	msg, err := nc.Request(wire.CmdSubject(dev.License, "world10"), []byte(`{"func":"rcon","command":"status"}`), 10*time.Second)
	if err != nil {
		t.Fatalf("rcon through the agent: %v", err)
	}
	var r struct{ Status, Message, Output string }
	if err := json.Unmarshal(msg.Data, &r); err != nil || r.Status != "success" || r.Output == "" {
		t.Fatalf("rcon status on world10: %s", msg.Data)
	}
}

func withoutDatabaseURL(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "DATABASE_URL=") {
			out = append(out, kv)
		}
	}
	return out
}

// waitUp waits for the panel's /healthz and both worlds' /status with
// their sidecar link up.
func waitUp(t *testing.T, panel string, worldPorts []int) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	poll.Until(t, 90*time.Second, func() error {
		if code, _ := get(client, panel+"/healthz"); code != http.StatusOK {
			return fmt.Errorf("panel /healthz: %d", code)
		}
		for _, p := range worldPorts {
			ether, err := dev.WorldEther(context.Background(), client, p)
			if err != nil || ether != "up" {
				return fmt.Errorf("world on %d: ether %q, %v", p, ether, err)
			}
		}
		return nil
	})
}

func login(t *testing.T, panel, password string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"name": {"admin"}, "password": {password}}
	req, _ := http.NewRequest(http.MethodPost, panel+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", panel)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login with the printed password: %s", resp.Status)
	}
	return hc
}

func get(hc *http.Client, u string) (int, string) {
	resp, err := hc.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// descendants lists every process below pid, recursively.
func descendants(t *testing.T, pid int) []*process.Process {
	t.Helper()
	p, err := process.NewProcess(int32(pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []*process.Process
	kids, _ := p.Children()
	for _, k := range kids {
		out = append(out, k)
		out = append(out, descendants(t, int(k.Pid))...)
	}
	return out
}
