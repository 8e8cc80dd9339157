package agent_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// authServer is an embedded nats-server on a fixed loopback port that
// accepts one user and password, and can be restarted with other ones (a
// rotated password). It counts the connections it refused.
type authServer struct {
	t    testing.TB
	port int

	rejected atomic.Int64 // connections refused for bad credentials

	mu         sync.Mutex
	srv        *server.Server // guarded by mu; nil while stopped
	user, pass string         // guarded by mu
}

func startAuthServer(t testing.TB, user, pass string) *authServer {
	t.Helper()
	s := &authServer{t: t, port: natstest.FreePort(t)}
	s.restart(user, pass)
	t.Cleanup(s.stop)
	return s
}

func (s *authServer) url() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

// The observer account (the test's own client) is always accepted and
// never counted.
const observer, observerPW = "observer", "observer-pw"

// Check implements server.Authentication.
func (s *authServer) Check(c server.ClientAuthentication) bool {
	o := c.GetOpts()
	if o.Username == observer && o.Password == observerPW {
		return true
	}
	s.mu.Lock()
	ok := o.Username == s.user && o.Password == s.pass
	s.mu.Unlock()
	if !ok {
		s.rejected.Add(1)
	}
	return ok
}

// restart stops the server and starts it again with user and pass.
func (s *authServer) restart(user, pass string) {
	s.t.Helper()
	s.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user, s.pass = user, pass
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: s.port, NoLog: true, NoSigs: true,
		CustomClientAuthentication: s})
	if err != nil {
		s.t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		s.t.Fatal("auth nats server not ready")
	}
	s.srv = srv
}

func (s *authServer) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		s.srv.Shutdown()
		s.srv.WaitForShutdown()
		s.srv = nil
	}
}

// connect dials with user and pass; the client retries forever.
func (s *authServer) connect(t testing.TB, user, pass string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.url(), nats.UserInfo(user, pass), nats.MaxReconnects(-1),
		nats.ReconnectWait(50*time.Millisecond), nats.IgnoreAuthErrorAbort(), nats.RetryOnFailedConnect(true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// agentProc is the real corrosion-agent binary run with an [agent] table
// and no instances; its log output is kept.
type agentProc struct {
	t   testing.TB
	cmd *exec.Cmd
	out *testbin.Output
}

func runAgent(t testing.TB, agentTable string, env ...string) *agentProc {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf("[agent]\nlicense_id = %q\nstate_dir = %q\nlog_level = \"debug\"\n%s\n",
		license, filepath.Join(dir, "state"), agentTable)
	path := filepath.Join(dir, "agent.toml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	p := &agentProc{t: t, out: &testbin.Output{}}
	p.cmd = exec.Command(testbin.Build(t, "./agent/cmd/corrosion-agent"), "run", "--config", path)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.Env = append(testbin.Env(), env...)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			t.Errorf("agent did not exit on SIGTERM")
		}
		if t.Failed() {
			t.Logf("agent output:\n%s", p.out.String())
		}
	})
	return p
}

// waitPing waits until the agent answers ping through nc.
func waitPing(t testing.TB, nc *nats.Conn, within time.Duration) {
	t.Helper()
	poll.Until(t, within, func() error {
		_, err := nc.Request(wire.HostCmdSubject(license), []byte(`{"func":"ping"}`), time.Second)
		return err
	})
}

// count is how many lines of the agent's output contain every one of subs.
func (p *agentProc) count(subs ...string) int {
	n := 0
	for _, line := range strings.Split(p.out.String(), "\n") {
		all := true
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			n++
		}
	}
	return n
}

// TestAgent_NATSUserPasswordOptions: a password full of characters a URL
// cannot hold, given as nats_password from ${VAR}, connects.
func TestAgent_NATSUserPasswordOptions(t *testing.T) {
	const pw = "p/@:%?#w,x y"
	ns := startAuthServer(t, "agent", pw)
	runAgent(t, fmt.Sprintf("nats_url = %q\nnats_user = \"agent\"\nnats_password = \"${NATS_PW}\"", ns.url()), "NATS_PW="+pw)
	waitPing(t, ns.connect(t, "agent", pw), 15*time.Second)
}

// TestAgent_NATSPasswordRotatedAwayAndBack: the server's password is
// rotated away (the agent's reconnects are refused more often than
// nats.go's default two) and back: the agent reconnects by itself. Its log
// says "authorization violation" once for the episode, naming the server,
// then "nats connected"; the password never shows.
func TestAgent_NATSPasswordRotatedAwayAndBack(t *testing.T) {
	const pw = "rotate/me@now"
	ns := startAuthServer(t, "agent", pw)
	p := runAgent(t, fmt.Sprintf("nats_url = %q\nnats_user = \"agent\"\nnats_password = %q", ns.url(), pw))
	obs := ns.connect(t, observer, observerPW)
	waitPing(t, obs, 15*time.Second)

	ns.restart("agent", "someone-elses")
	poll.True(t, 30*time.Second, "at least 3 refused reconnects", func() bool { return ns.rejected.Load() >= 3 })
	ns.restart("agent", pw)
	waitPing(t, obs, 40*time.Second)

	if n := p.count("cannot connect", `reason="authorization violation"`, "server="+ns.url()); n != 1 {
		t.Errorf("%d authorization failure lines for %d refused reconnects, want 1 per episode", n, ns.rejected.Load())
	}
	if out := p.out.String(); strings.LastIndex(out, "nats connected") < strings.LastIndex(out, "authorization violation") {
		t.Errorf("no \"nats connected\" after the failure")
	}
	if strings.Contains(p.out.String(), pw) {
		t.Errorf("the agent's log shows the password")
	}
}

// TestAgent_NATSAuthRefusedAtBoot: an agent that starts with a password
// the server refuses keeps retrying until the server takes it.
func TestAgent_NATSAuthRefusedAtBoot(t *testing.T) {
	ns := startAuthServer(t, "agent", "not-yet")
	p := runAgent(t, fmt.Sprintf("nats_url = %q\nnats_user = \"agent\"\nnats_password = \"pw\"", ns.url()))
	poll.True(t, 30*time.Second, "at least 3 refused connects", func() bool { return ns.rejected.Load() >= 3 })
	ns.restart("agent", "pw")
	waitPing(t, ns.connect(t, observer, observerPW), 40*time.Second)
	if n := p.count("cannot connect", `reason="authorization violation"`); n != 1 {
		t.Errorf("%d authorization failure lines, want 1", n)
	}
}

// TestAgent_NATSUnreachableLogged: each outage is one "unreachable" line
// naming the server, and "nats connected" when it is back.
func TestAgent_NATSUnreachableLogged(t *testing.T) {
	ns := natstest.Start(t)
	ns.Shutdown()
	p := runAgent(t, fmt.Sprintf("nats_url = %q", ns.URL()))
	line := []string{"cannot connect", "reason=unreachable", "server=" + ns.URL()}
	poll.True(t, 15*time.Second, "an unreachable line", func() bool { return p.count(line...) == 1 })
	ns.Restart()
	waitPing(t, ns.Connect(t), 40*time.Second)
	if n := p.count(line...); n != 1 {
		t.Errorf("%d unreachable lines during the first outage, want 1", n)
	}
	ns.Shutdown() // a second outage is a second episode
	poll.True(t, 15*time.Second, "a second unreachable line", func() bool { return p.count(line...) == 2 })
}

// TestAgent_NATSTLSFailureLogged: a tls:// URL to a server without TLS is
// a TLS failure, said so.
func TestAgent_NATSTLSFailureLogged(t *testing.T) {
	ns := natstest.Start(t)
	tlsURL := "tls://127.0.0.1:" + strconv.Itoa(ns.Port())
	p := runAgent(t, fmt.Sprintf("nats_url = %q", tlsURL))
	poll.True(t, 15*time.Second, "a TLS failure line", func() bool {
		return p.count("cannot connect", "reason=tls", "server="+tlsURL) == 1
	})
}

// TestAgent_ShutdownLogsNoDisconnect: the drain at shutdown is not an
// outage; the agent must not log "disconnected; reconnecting" on its way out.
func TestAgent_ShutdownLogsNoDisconnect(t *testing.T) {
	ns := natstest.Start(t)
	p := runAgent(t, fmt.Sprintf("nats_url = %q", ns.URL()))
	waitPing(t, ns.Connect(t), 15*time.Second)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("agent exit: %v", err)
	}
	if n := p.count("nats disconnected"); n != 0 {
		t.Errorf("%d disconnect lines at shutdown, want 0:\n%s", n, p.out.String())
	}
}

// TestAgent_LogLinesNameOneComponent: each part's log lines carry its own
// component once (they carried component=agent and then their own).
func TestAgent_LogLinesNameOneComponent(t *testing.T) {
	ns := natstest.Start(t)
	root := t.TempDir()
	p := runAgent(t, fmt.Sprintf("nats_url = %q\n\n[[instance]]\nid = \"game\"\ngame = \"generic\"\nroot = %q\nexec = %q\nargs = [\"-run-for\", \"1h\"]\nautostart = true\n",
		ns.URL(), root, testbin.Build(t, "./tools/fakegame")))
	poll.True(t, 15*time.Second, "a supervisor log line", func() bool { return p.count("component=supervise") > 0 })
	for _, line := range strings.Split(p.out.String(), "\n") {
		if strings.Count(line, "component=") > 1 {
			t.Errorf("log line names more than one component: %s", line)
		}
	}
}
