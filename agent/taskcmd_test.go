package agent

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/install"
	"github.com/corrosion/corrosion/agent/steam"
	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

const taskLicense = "task-lic"

// taskRig is a real Agent (embedded NATS, supervisors, the fake game) whose
// instance "rust1" is set up by hand as created from the built-in rust
// template (FRAMEWORK oxide), installed by the fake steamcmd from a local
// depot and Oxide from a local GitHub API; "plain" is an agent.toml
// instance without a template.
type taskRig struct {
	t      *testing.T
	nc     *nats.Conn
	a      *Agent
	root   string
	depot  string
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	events []wire.StateEvent   // rust1's status events; guarded by mu
	lines  map[string][]string // agent console lines by instance; guarded by mu
	game   map[string][]string // the game's own console lines by instance; guarded by mu
}

type rigOpts struct {
	provisioning bool
	steamMode    string
	steamLimit   time.Duration
	deadline     time.Duration        // the task deadline; 0: the default
	spec         func(*template.Spec) // changes rust1's rendered spec; nil: none
}

func newTaskRig(t *testing.T, o rigOpts) *taskRig {
	t.Helper()
	ns := natstest.Start(t)
	dir := t.TempDir()
	r := &taskRig{t: t, root: filepath.Join(dir, "rust1"), depot: filepath.Join(dir, "depot"), done: make(chan struct{}),
		lines: map[string][]string{}, game: map[string][]string{}}
	r.nc = ns.Connect(t)
	game := testbin.Build(t, "./tools/fakegame")
	crashy := filepath.Join(dir, "crashy")
	for _, d := range []string{r.root, filepath.Join(dir, "plain"), crashy} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Parse([]byte(fmt.Sprintf(`[agent]
license_id = %q
nats_url = %q
state_dir = %q
allow_root = true
provisioning = %v
restart_backoff_initial = "1h"
restart_backoff_max = "2h"

[[instance]]
id = "rust1"
game = "rust"
root = %q
exec = %q
stop_timeout_seconds = 5

[[instance]]
id = "plain"
game = "generic"
root = %q
exec = %q

[[instance]]
id = "crashy"
game = "rust"
root = %q
exec = %q
args = ["-run-for", "100ms", "-exit-code", "3"]
restart = "on-crash"
`, taskLicense, ns.URL(), filepath.Join(dir, "state"), o.provisioning, r.root, game, filepath.Join(dir, "plain"), game,
		crashy, game)), nil)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if r.a, err = New(cfg, log); err != nil {
		t.Fatal(err)
	}
	spec := r.rustSpec()
	if o.spec != nil {
		o.spec(&spec)
	}
	r.a.tasks = newTasks(install.New(install.Options{Steam: r.fakeSteam(o), GitHubAPI: r.releases(), Log: log}),
		func(id string) (template.Spec, string, bool) {
			roots := map[string]string{"rust1": r.root, "crashy": crashy}
			return spec, roots[id], roots[id] != ""
		}, r.a.log)
	if o.deadline > 0 {
		r.a.tasks.deadline = o.deadline
	}
	r.watch()
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { defer close(r.done); _ = r.a.Run(ctx) }()
	t.Cleanup(r.stop)
	poll.Until(t, 10*time.Second, func() error {
		_, err := r.nc.Request(wire.HostCmdSubject(taskLicense), []byte(`{"func":"ping"}`), time.Second)
		return err
	})
	return r
}

// stop stops the agent and waits for Run to return.
func (r *taskRig) stop() {
	r.cancel()
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		r.t.Error("the agent did not stop")
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func (r *taskRig) rustSpec() template.Spec { return rustSpec(r.t) }

// rustSpec is the built-in rust template rendered with FRAMEWORK oxide.
func rustSpec(t *testing.T) template.Spec {
	t.Helper()
	data, _ := template.BuiltinSource("rust")
	tpl, err := template.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := template.Render(&tpl, map[string]string{"FRAMEWORK": "oxide", "RCON_PASSWORD": "rcon-secret-1"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fakeSteam is a runner on tools/fakesteamcmd with build 100 in the depot.
func (r *taskRig) fakeSteam(o rigOpts) *steam.Runner {
	r.build("100")
	home := r.t.TempDir()
	limit := o.steamLimit
	if limit == 0 {
		limit = time.Minute
	}
	return &steam.Runner{Path: testbin.Build(r.t, "./tools/fakesteamcmd"), Home: home, Limit: limit, Attempts: 2, Log: r.a.log,
		Backoff: func(int) time.Duration { return time.Millisecond },
		Env:     append(testbin.Env(), "FAKESTEAMCMD_HOME="+home, "FAKESTEAMCMD_DEPOT="+r.depot, "FAKESTEAMCMD_MODE="+o.steamMode)}
}

// build adds Rust build b to the depot: it overwrites Oxide's patched file.
func (r *taskRig) build(b string) { depotBuild(r.t, r.depot, b) }

// depotBuild adds Rust build b to the fake steamcmd's depot.
func depotBuild(t *testing.T, depot, b string) {
	t.Helper()
	for name, body := range map[string]string{"RustDedicated": "server " + b, "RustDedicated_Data/Managed/Assembly-CSharp.dll": "vanilla " + b} {
		p := filepath.Join(depot, "258550", "public", b, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// releases serves Oxide's latest release; it returns the API base.
func (r *taskRig) releases() string {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("RustDedicated_Data/Managed/Assembly-CSharp.dll")
	_, _ = w.Write([]byte("patched by oxide"))
	if err := zw.Close(); err != nil {
		r.t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil) // on 127.0.0.1
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/repos/OxideMod/Oxide.Rust/releases/latest":
			_ = json.NewEncoder(w).Encode(map[string]any{"tag_name": "v2", "assets": []map[string]string{
				{"name": "Oxide.Rust-linux.zip", "browser_download_url": srv.URL + "/oxide.zip"}}})
		case "/oxide.zip":
			_, _ = w.Write(buf.Bytes())
		default:
			http.NotFound(w, req)
		}
	})
	srv.Start()
	r.t.Cleanup(srv.Close)
	return srv.URL
}

func (r *taskRig) watch() {
	sub := func(subject string, fn nats.MsgHandler) {
		if _, err := r.nc.Subscribe(subject, fn); err != nil {
			r.t.Fatal(err)
		}
	}
	sub(wire.StatusSubject(taskLicense, "rust1"), func(m *nats.Msg) {
		var ev wire.StatusEvent
		if json.Unmarshal(m.Data, &ev) == nil {
			r.mu.Lock()
			r.events = append(r.events, ev.Event)
			r.mu.Unlock()
		}
	})
	sub(wire.ConsoleSubject(taskLicense, "*"), func(m *nats.Msg) {
		var cm wire.ConsoleMessage
		if json.Unmarshal(m.Data, &cm) == nil {
			r.mu.Lock()
			for _, l := range cm.Lines {
				if l.Stream == wire.StreamAgent {
					r.lines[cm.InstanceID] = append(r.lines[cm.InstanceID], l.Text)
				} else {
					r.game[cm.InstanceID] = append(r.game[cm.InstanceID], l.Text)
				}
			}
			r.mu.Unlock()
		}
	})
	if err := r.nc.Flush(); err != nil {
		r.t.Fatal(err)
	}
}

// cmd sends a request to id's cmd subject and decodes the reply.
func (r *taskRig) cmd(id, body string) map[string]any {
	r.t.Helper()
	m, err := r.nc.Request(wire.CmdSubject(taskLicense, id), []byte(body), 30*time.Second)
	if err != nil {
		r.t.Fatalf("%s %s: %v", id, body, err)
	}
	var rep map[string]any
	if err := json.Unmarshal(m.Data, &rep); err != nil {
		r.t.Fatal(err)
	}
	return rep
}

func (r *taskRig) mustCode(rep map[string]any, code string) string {
	r.t.Helper()
	if rep["status"] != wire.StatusError || rep["code"] != code {
		r.t.Fatalf("reply %v, want error %s", rep, code)
	}
	msg, _ := rep["message"].(string)
	return msg
}

func (r *taskRig) mustOK(rep map[string]any) map[string]any {
	r.t.Helper()
	if rep["status"] != wire.StatusSuccess {
		r.t.Fatalf("reply %v, want success", rep)
	}
	return rep
}

// task waits for the status event that ends the n-th task (1-based) and
// returns its result.
func (r *taskRig) task(n int, timeout time.Duration) wire.StateEvent {
	r.t.Helper()
	var ev wire.StateEvent
	poll.Until(r.t, timeout, func() error {
		r.mu.Lock()
		defer r.mu.Unlock()
		seen := 0
		for _, e := range r.events {
			if e.Task != nil {
				if seen++; seen == n {
					ev = e
					return nil
				}
			}
		}
		return fmt.Errorf("%d task results, want %d; agent lines:\n%s", seen, n, strings.Join(r.lines["rust1"], "\n"))
	})
	return ev
}

// hasLine: an agent line of id holds sub.
func (r *taskRig) hasLine(id, sub string) bool { return r.has(r.lines, id, sub) }

// hasGameLine: a line of id's game holds sub.
func (r *taskRig) hasGameLine(id, sub string) bool { return r.has(r.game, id, sub) }

func (r *taskRig) has(lines map[string][]string, id, sub string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range lines[id] {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// report is id's entry in a fresh heartbeat (host func sysinfo).
func (r *taskRig) report(id string) wire.InstanceReport {
	r.t.Helper()
	m, err := r.nc.Request(wire.HostCmdSubject(taskLicense), []byte(`{"func":"sysinfo"}`), 10*time.Second)
	if err != nil {
		r.t.Fatal(err)
	}
	var rep struct {
		Snapshot wire.Heartbeat `json:"snapshot"`
	}
	if err := json.Unmarshal(m.Data, &rep); err != nil {
		r.t.Fatal(err)
	}
	for _, in := range rep.Snapshot.Instances {
		if in.ID == id {
			return in
		}
	}
	r.t.Fatalf("no %s in the heartbeat: %s", id, m.Data)
	return wire.InstanceReport{}
}

func (r *taskRig) file(rel string) string {
	b, err := os.ReadFile(filepath.Join(r.root, rel))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

func (r *taskRig) state(id string) string {
	r.t.Helper()
	st, _ := r.mustOK(r.cmd(id, `{"func":"status"}`))["state"].(string)
	return st
}

// Provisioning off: every task func refused with provisioning_disabled.
func TestTasks_RefusedWhenProvisioningOff(t *testing.T) {
	r := newTaskRig(t, rigOpts{})
	for _, f := range []string{wire.FuncInstall, wire.FuncUpdateCheck, wire.FuncSteamUpdate, wire.FuncOxideInstall} {
		r.mustCode(r.cmd("rust1", `{"func":"`+f+`"}`), wire.CodeProvisioningDisabled)
	}
}

// The whole life: install (progress lines, result event with the build),
// update_check with nothing to do, then with an update, steam_update of a
// running game (stop → update → Oxide reapplied → start), oxide_install;
// refusals: not_provisioned, instance_running, bad warn_seconds.
func TestTasks_InstallCheckUpdateOxide(t *testing.T) {
	r := newTaskRig(t, rigOpts{provisioning: true})
	msg := r.mustCode(r.cmd("plain", `{"func":"install"}`), wire.CodeNotProvisioned)
	if !strings.Contains(msg, "agent.toml") {
		t.Errorf("not_provisioned message %q", msg)
	}

	rep := r.mustOK(r.cmd("rust1", `{"func":"install"}`))
	if rep["task"] != wire.FuncInstall {
		t.Errorf("install reply %v", rep)
	}
	ev := r.task(1, 30*time.Second)
	if ev.Task.Task != wire.FuncInstall || ev.Task.Result != wire.TaskOK || ev.Task.NewBuild != "100" || ev.State != wire.StateStopped {
		t.Fatalf("install result %+v %+v", ev, ev.Task)
	}
	if !r.hasLine("rust1", "install: steamcmd: app_update 258550") || !r.hasLine("rust1", "install: github release OxideMod/Oxide.Rust v2") {
		t.Errorf("install progress lacks steps:\n%s", r.allLines())
	}
	if got := r.file("RustDedicated_Data/Managed/Assembly-CSharp.dll"); got != "patched by oxide" {
		t.Errorf("after install: %q", got)
	}
	if got := r.file("server/corrosion/cfg/server.cfg"); !strings.Contains(got, `rcon.password "rcon-secret-1"`) {
		t.Errorf("config edit: %q", got)
	}

	check := r.mustOK(r.cmd("rust1", `{"func":"update_check"}`))
	if check["installed_build"] != "100" || check["available_build"] != "100" || check["update_available"] != false || check["app_id"] != "258550" {
		t.Errorf("update_check, nothing to do: %v", check)
	}
	r.build("101")
	check = r.mustOK(r.cmd("rust1", `{"func":"update_check"}`))
	if check["available_build"] != "101" || check["update_available"] != true {
		t.Errorf("update_check with an update: %v", check)
	}
	if rep := r.report("rust1"); rep.Build != "100" || rep.AvailableBuild != "101" {
		t.Errorf("heartbeat report: build %q, available %q; want 100, 101", rep.Build, rep.AvailableBuild)
	}

	r.mustOK(r.cmd("rust1", `{"func":"start","wait":true}`))
	r.mustCode(r.cmd("rust1", `{"func":"install"}`), wire.CodeInstanceRunning)
	r.mustCode(r.cmd("rust1", `{"func":"oxide_install","no_restart":true}`), wire.CodeInstanceRunning)
	r.mustCode(r.cmd("rust1", `{"func":"oxide_install","warn_seconds":3601}`), wire.CodeBadArgs)
	r.mustCode(r.cmd("rust1", `{"func":"steam_update","warn_seconds":-1}`), wire.CodeBadArgs)
	pid := r.mustOK(r.cmd("rust1", `{"func":"status"}`))["pid"]
	r.mustOK(r.cmd("rust1", `{"func":"steam_update"}`))
	ev = r.task(4, 60*time.Second)
	if ev.Task.Task != wire.FuncSteamUpdate || ev.Task.Result != wire.TaskOK || ev.Task.OldBuild != "100" || ev.Task.NewBuild != "101" {
		t.Fatalf("steam_update result %+v", ev.Task)
	}
	if got := r.file("RustDedicated_Data/Managed/Assembly-CSharp.dll"); got != "patched by oxide" {
		t.Errorf("Oxide was not reapplied after the update: %q", got)
	}
	poll.True(t, 20*time.Second, "the game runs again", func() bool { return r.state("rust1") == string(wire.StateRunning) })
	if newPID := r.mustOK(r.cmd("rust1", `{"func":"status"}`))["pid"]; newPID == pid {
		t.Errorf("the game was not restarted (pid %v)", pid)
	}

	// oxide_install of the running game: stopped, installed, started again.
	pid = r.mustOK(r.cmd("rust1", `{"func":"status"}`))["pid"]
	r.mustOK(r.cmd("rust1", `{"func":"oxide_install"}`))
	if ev = r.task(5, 30*time.Second); ev.Task.Task != wire.FuncOxideInstall || ev.Task.Result != wire.TaskOK {
		t.Fatalf("oxide_install result %+v", ev.Task)
	}
	if !r.hasLine("rust1", "oxide_install: stopping the game") || !r.hasLine("rust1", "oxide_install: starting the game again") {
		t.Errorf("oxide_install of the running game did not stop and start it:\n%s", r.allLines())
	}
	poll.True(t, 20*time.Second, "the game runs again", func() bool { return r.state("rust1") == string(wire.StateRunning) })
	if newPID := r.mustOK(r.cmd("rust1", `{"func":"status"}`))["pid"]; newPID == pid {
		t.Errorf("the game was not restarted (pid %v)", pid)
	}
	r.mustOK(r.cmd("rust1", `{"func":"stop","wait":true}`))
	r.mustOK(r.cmd("rust1", `{"func":"oxide_install","no_restart":true}`))
	if ev = r.task(6, 30*time.Second); ev.Task.Task != wire.FuncOxideInstall || ev.Task.Result != wire.TaskOK || ev.State != wire.StateStopped {
		t.Fatalf("oxide_install of the stopped game %+v %+v", ev, ev.Task)
	}
}

// A disk-full update of a running game: the task fails with the steam
// code, the game is left stopped with the reason, and the agent serves on.
func TestTasks_FailedUpdateLeavesStopped(t *testing.T) {
	r := newTaskRig(t, rigOpts{provisioning: true, steamMode: "disk_full"})
	r.mustOK(r.cmd("rust1", `{"func":"start","wait":true}`))
	r.mustOK(r.cmd("rust1", `{"func":"steam_update","force":true}`))
	ev := r.task(1, 30*time.Second)
	if ev.Task.Result != wire.TaskFailed || ev.Task.Code != steam.CodeDiskFull || ev.State != wire.StateStopped ||
		!strings.Contains(ev.Message, "disk space") {
		t.Fatalf("result %+v %+v", ev, ev.Task)
	}
	if st := r.state("rust1"); st != string(wire.StateStopped) {
		t.Errorf("state %s after a failed update, want stopped", st)
	}
	if !r.hasLine("rust1", "steam_update: failed: ") {
		t.Errorf("no failure line:\n%s", r.allLines())
	}
}

// One task per instance: a second is busy, and so is a start; a task past
// its deadline fails saying so; agent shutdown cancels a running task
// (steamcmd killed) and the task still ends with its event.
func TestTasks_BusyDeadlineShutdown(t *testing.T) {
	r := newTaskRig(t, rigOpts{provisioning: true, steamMode: "hang"})
	r.mustOK(r.cmd("rust1", `{"func":"install"}`))
	msg := r.mustCode(r.cmd("rust1", `{"func":"steam_update"}`), wire.CodeBusy)
	if !strings.Contains(msg, "install") {
		t.Errorf("busy message %q does not name the running task", msg)
	}
	r.mustCode(r.cmd("rust1", `{"func":"start"}`), wire.CodeBusy)
	r.mustCode(r.cmd("rust1", `{"func":"update_check"}`), wire.CodeBusy)
	poll.True(t, 10*time.Second, "steamcmd runs", func() bool { return r.hasLine("rust1", "install: steamcmd: app_update") })
	start := time.Now()
	r.stop()
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("shutdown took %s", took)
	}
	ev := r.task(1, 5*time.Second)
	if ev.Task.Result != wire.TaskFailed || ev.Task.Code != steam.CodeCanceled || !strings.Contains(ev.Message, "shutting down") {
		t.Fatalf("result at shutdown %+v", ev.Task)
	}

	r = newTaskRig(t, rigOpts{provisioning: true, steamMode: "hang", deadline: time.Second})
	r.mustOK(r.cmd("rust1", `{"func":"install"}`))
	ev = r.task(1, 30*time.Second)
	if ev.Task.Result != wire.TaskFailed || !strings.Contains(ev.Message, "deadline") {
		t.Fatalf("result past the deadline %+v", ev.Task)
	}
	r.mustOK(r.cmd("rust1", `{"func":"status"}`)) // serving on
}

func (r *taskRig) allLines() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines["rust1"], "\n")
}

// A pending crash restart counts as running: install is refused (the
// restart would start the game in the middle of it). Two installs on two
// instances: the second waits for the host's one steamcmd, saying so.
func TestTasks_CrashRestartPendingAndOneSteamCMD(t *testing.T) {
	r := newTaskRig(t, rigOpts{provisioning: true, steamMode: "hang"})
	r.mustOK(r.cmd("crashy", `{"func":"start"}`))
	poll.Until(t, 20*time.Second, func() error {
		st := r.mustOK(r.cmd("crashy", `{"func":"status"}`))
		if st["state"] != string(wire.StateCrashed) || st["restart_in_seconds"] == nil {
			return fmt.Errorf("crashy: %v", st)
		}
		return nil
	})
	msg := r.mustCode(r.cmd("crashy", `{"func":"install"}`), wire.CodeInstanceRunning)
	if !strings.Contains(msg, "crash restart pending") {
		t.Errorf("message %q", msg)
	}
	r.mustOK(r.cmd("crashy", `{"func":"stop","wait":true}`))

	r.mustOK(r.cmd("rust1", `{"func":"install"}`))
	poll.True(t, 10*time.Second, "rust1's steamcmd runs", func() bool { return r.hasLine("rust1", "install: steamcmd: app_update") })
	r.mustOK(r.cmd("crashy", `{"func":"install"}`))
	poll.True(t, 10*time.Second, "crashy waits for steamcmd", func() bool {
		return r.hasLine("crashy", "install: waiting for another steamcmd run on this host")
	})
}

// [agent] steamcmd and steamcmd_home: the agent runs the configured
// steamcmd (not on PATH) and removes the stale appinfo.vdf in its home, not
// beside the program: the second update_check sees the new build.
func TestTasks_ConfiguredSteamCMDAndHome(t *testing.T) {
	dir := t.TempDir()
	home, depot := filepath.Join(dir, "home", "Steam"), filepath.Join(dir, "depot")
	fake := testbin.Build(t, "./tools/fakesteamcmd")
	t.Setenv("FAKESTEAMCMD_HOME", home)
	t.Setenv("FAKESTEAMCMD_DEPOT", depot)
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte(fmt.Sprintf(`[agent]
license_id = %q
state_dir = %q
provisioning = true
steamcmd = %q
steamcmd_home = %q
`, taskLicense, filepath.Join(dir, "state"), fake, home)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, slog.New(slog.NewTextHandler(testWriter{t}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	job := install.Job{Spec: rustSpec(t), Root: filepath.Join(dir, "rust1"), Progress: func(l string) { t.Log(l) }}
	depotBuild(t, depot, "100")
	c, err := a.tasks.in.UpdateCheck(t.Context(), job)
	if err != nil || c.Available != "100" {
		t.Fatalf("first update_check: %+v, %v", c, err)
	}
	if _, err := os.Stat(filepath.Join(home, "appcache", "appinfo.vdf")); err != nil {
		t.Fatalf("steamcmd left no appinfo.vdf in its home: %v", err)
	}
	depotBuild(t, depot, "101")
	if c, err = a.tasks.in.UpdateCheck(t.Context(), job); err != nil || c.Available != "101" || !c.UpdateAvailable {
		t.Fatalf("second update_check: %+v, %v; want build 101 (the stale appinfo.vdf removed)", c, err)
	}
}

// The warning before steam_update's stop is the template's broadcast
// command, sent to the game's console; a template without one warns
// nobody and still waits warn_seconds before the stop.
func TestTasks_UpdateWarnsWithTheTemplatesBroadcast(t *testing.T) {
	for _, tc := range []struct {
		name, broadcast, want string
	}{
		{"broadcast", "broadcast {message} !", "echo: broadcast The server restarts for a game update in 1 second. !"},
		{"none", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTaskRig(t, rigOpts{provisioning: true, spec: func(s *template.Spec) { s.Console.Broadcast = tc.broadcast }})
			r.mustOK(r.cmd("rust1", `{"func":"start","wait":true}`))
			start := time.Now()
			r.mustOK(r.cmd("rust1", `{"func":"steam_update","force":true,"warn_seconds":1}`))
			ev := r.task(1, 60*time.Second)
			if ev.Task.Result != wire.TaskOK {
				t.Fatalf("steam_update %+v", ev.Task)
			}
			if time.Since(start) < time.Second {
				t.Errorf("the update did not wait warn_seconds (%s)", time.Since(start))
			}
			if tc.want != "" && !r.hasGameLine("rust1", tc.want) {
				t.Errorf("the game did not get %q:\n%s", tc.want, r.allLines())
			}
			if tc.want == "" && (!r.hasLine("rust1", "steam_update: the game has no broadcast command: the players are not warned") || r.hasGameLine("rust1", "restarts for")) {
				t.Errorf("no broadcast: %s", r.allLines())
			}
			if r.hasGameLine("rust1", "echo: say ") {
				t.Error("the game got a hard-coded say")
			}
		})
	}
}
