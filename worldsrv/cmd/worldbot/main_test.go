package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/testbin"
	"github.com/corrosion/corrosion/worldsrv/bot/swarm"
	"github.com/corrosion/corrosion/worldsrv/bot/worldtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// worldbot runs the built worldbot with args and returns its exit code,
// stdout and stderr; stop, when not nil, is called once it has started;
// stderr, when not nil, watches its standard error.
func worldbot(t *testing.T, stop func(*exec.Cmd), stderr *watch, args ...string) (int, []byte, string) {
	t.Helper()
	return worldbotEnv(t, nil, stop, stderr, args...)
}

// worldbotEnv is worldbot with env (NAME=value) added to its environment.
func worldbotEnv(t *testing.T, env []string, stop func(*exec.Cmd), stderr *watch, args ...string) (int, []byte, string) {
	t.Helper()
	cmd := exec.Command(testbin.Build(t, "./worldsrv/cmd/worldbot"), args...)
	var stdout bytes.Buffer
	if stderr == nil {
		stderr = &watch{seen: make(chan struct{})}
	}
	cmd.Env, cmd.Stdout, cmd.Stderr = append(testbin.Env(), env...), &stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if stop != nil {
		stop(cmd)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * worldtest.Wait):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("worldbot did not stop by itself\n%s", stderr.String())
	}
	return cmd.ProcessState.ExitCode(), stdout.Bytes(), stderr.String()
}

func TestWorldbot_20Bots_JSONReport(t *testing.T) {
	addr := worldtest.Start(t, "--max-conns-per-ip", "100") // every bot comes from 127.0.0.1
	code, out, errOut := worldbot(t, nil, nil, "--addr", addr, "--bots", "20", "--duration", "3s",
		"--friends", "2", "--walk", "--pm-rate", "5", "--json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	var rep swarm.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	t.Logf("report %+v", rep)
	if rep.Bots != 20 || rep.Logins != 20 || rep.LoginFailures != 0 || rep.Worlds != 1 || rep.Interrupted {
		t.Fatalf("report %+v", rep)
	}
	if rep.LoginsPerSec <= 0 || rep.LoginP50Ms <= 0 || rep.LoginP99Ms < rep.LoginP50Ms {
		t.Fatalf("login figures %+v", rep)
	}
	if rep.FriendAdds != 40 || rep.WalksSent < 20 || rep.Positions == 0 || rep.PositionsPerSec <= 0 || rep.PMsSent == 0 {
		t.Fatalf("run figures %+v", rep)
	}
	if rep.RunSeconds < 3 || len(rep.Errors) != 0 {
		t.Fatalf("run %.2fs, errors %v", rep.RunSeconds, rep.Errors)
	}
}

// Ctrl-C during the run ends it early: logout, the report (interrupted),
// exit 0.
func TestWorldbot_SIGINT_ReportsInterrupted(t *testing.T) {
	addr := worldtest.Start(t)
	logins := make(chan struct{})
	code, out, errOut := worldbot(t, func(cmd *exec.Cmd) {
		select {
		case <-logins:
		case <-time.After(worldtest.Wait):
			t.Error("worldbot never finished its logins")
		}
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Error(err)
		}
	}, &watch{want: "logins done", seen: logins}, "--addr", addr, "--bots", "3", "--duration", "10m", "--json", "-v")
	var rep swarm.Report
	if err := json.Unmarshal(out, &rep); err != nil || code != 0 {
		t.Fatalf("exit %d, report %s (%v)\n%s", code, out, err, errOut)
	}
	if !rep.Interrupted || rep.Logins != 3 || rep.RunSeconds >= 60 {
		t.Fatalf("report %+v", rep)
	}
}

// watch is a stderr that closes seen once want has been written.
type watch struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *watch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *watch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestWorldbot_BadFlags_Exit2(t *testing.T) {
	for name, args := range map[string][]string{
		"no addr":     {"--bots", "1"},
		"bad prefix":  {"--addr", "127.0.0.1:1", "--prefix", "Bad!"},
		"too friends": {"--addr", "127.0.0.1:1", "--bots", "2", "--friends", "2"},
		"no duration": {"--addr", "127.0.0.1:1", "--duration", "0s"},
		"neg wait":    {"--addr", "127.0.0.1:1", "--friends-online", "-1s"},
		"stray arg":   {"--addr", "127.0.0.1:1", "extra"},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, errOut := worldbot(t, nil, nil, args...)
			if code != 2 || !strings.HasPrefix(errOut, "worldbot: ") {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
		})
	}
}

func TestWorldbot_NoWorld_Exit1WithReport(t *testing.T) {
	code, out, _ := worldbot(t, nil, nil, "--addr", "127.0.0.1:1", "--bots", "2", "--duration", "1s", "--json")
	var rep swarm.Report
	if err := json.Unmarshal(out, &rep); err != nil || code != 1 {
		t.Fatalf("exit %d, report %s (%v)", code, out, err)
	}
	if rep.Logins != 0 || rep.LoginFailures != 2 || rep.Errors["login: network"] != 2 {
		t.Fatalf("report %+v", rep)
	}
}

// Two worlds with their sidecars: bots spread over both, PMs cross the
// cluster and their latency is measured.
func TestWorldbot_TwoWorlds_PMLatency(t *testing.T) {
	cl := worldtest.NewCluster(t)
	w1, w2 := cl.StartSpawn(t, 10, "--max-conns-per-ip", "100"), cl.StartSpawn(t, 11, "--max-conns-per-ip", "100")
	code, out, errOut := worldbot(t, nil, nil, "--addr", w1, "--addr2", w2, "--bots", "10", "--duration", "3s",
		"--friends", "2", "--friends-online", "20s", "--pm-rate", "10", "--json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	var rep swarm.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	t.Logf("report %+v", rep)
	if rep.Worlds != 2 || rep.Logins != 10 || rep.FriendAdds != 20 || rep.PMsSent == 0 || len(rep.Errors) != 0 {
		t.Fatalf("report %+v", rep)
	}
	if rep.PMsReceived == 0 || rep.PMsReceived > rep.PMsSent || rep.PMP50Ms <= 0 || rep.PMP99Ms < rep.PMP50Ms {
		t.Fatalf("PM figures %+v", rep)
	}
	// --friends-online: every friend was seen online before the first PM,
	// so none was answered offline.
	if rep.FriendsNotOnline != 0 || rep.FriendsWaitSeconds <= 0 || rep.FriendsWaitSeconds >= 20 || rep.PMsOffline != 0 {
		t.Fatalf("friends-online figures %+v", rep)
	}
}

// --friends-online against a world without ether: no friend ever shows
// online, so the wait runs out at its bound and the report counts every
// friend row as not online.
func TestWorldbot_FriendsOnline_NoEtherWaitRunsOut(t *testing.T) {
	addr := worldtest.Start(t, "--max-conns-per-ip", "100")
	code, out, errOut := worldbot(t, nil, nil, "--addr", addr, "--bots", "4", "--friends", "1",
		"--friends-online", "700ms", "--duration", "1s", "--json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	var rep swarm.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	if rep.Logins != 4 || rep.FriendsNotOnline != 4 || rep.FriendsWaitSeconds < 0.7 || rep.FriendsWaitSeconds > 10 {
		t.Fatalf("report %+v", rep)
	}
}

// --ws: the same bots over WebSocket /ws on the world's HTTP port; they
// log in, walk (Position updates come back) and their PMs are answered (a
// world without ether answers each "offline").
func TestWorldbot_WebSocket(t *testing.T) {
	w := worldtest.Run(t, pgtest.NewDatabase(t), "--max-conns-per-ip", "100")
	code, out, errOut := worldbot(t, nil, nil, "--ws", "--addr", strings.TrimPrefix(w.HTTP, "http://"),
		"--bots", "6", "--duration", "2s", "--friends", "1", "--walk", "--pm-rate", "5", "--json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	var rep swarm.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	if rep.Logins != 6 || rep.LoginFailures != 0 || rep.Positions == 0 || rep.PMsSent == 0 ||
		rep.SystemMsgs < rep.PMsSent || len(rep.Errors) != 0 {
		t.Fatalf("report %+v", rep)
	}
}
