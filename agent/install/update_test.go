package install

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/steam"
	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/internal/testbin"
)

// hooks records the calls steam_update makes of the supervisor.
type hooks struct {
	mu      sync.Mutex
	calls   []string // guarded by mu
	running bool     // guarded by mu
	stopErr error    // immutable once the task runs
}

func (h *hooks) add(c string) { h.mu.Lock(); h.calls = append(h.calls, c); h.mu.Unlock() }

func (h *hooks) Hooks() Hooks {
	return Hooks{
		Running: func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.running },
		Warn:    func(_ context.Context, text string) error { h.add("warn: " + text); return nil },
		Stop: func(context.Context) error {
			h.add("stop")
			if h.stopErr != nil {
				return h.stopErr
			}
			h.mu.Lock()
			h.running = false
			h.mu.Unlock()
			return nil
		},
		Start: func(context.Context) error {
			h.add("start")
			h.mu.Lock()
			h.running = true
			h.mu.Unlock()
			return nil
		},
	}
}

func (h *hooks) got() []string { h.mu.Lock(); defer h.mu.Unlock(); return slices.Clone(h.calls) }

// installed is a rig whose rust (FRAMEWORK oxide) is installed at build
// 100 with Oxide's release v1.
func installed(t testing.TB, mode string, failRuns int) (*rig, template.Spec) {
	t.Helper()
	r := newRig(t, mode, failRuns)
	r.rel.release("OxideMod/Oxide.Rust", releaseReply{Tag: "v1", Digest: true, Assets: map[string][]byte{
		"Oxide.Rust-linux.zip": zipOf(t, map[string]string{"RustDedicated_Data/Managed/Assembly-CSharp.dll": "patched by oxide", "RustDedicated_Data/Managed/Oxide.Core.dll": "oxide"}),
	}})
	spec := rustSpec(t, "oxide")
	good := New(Options{Steam: r.steam.runner(t, "", 0), GitHubAPI: r.rel.srv.URL + "/api", Log: testLogger(t)})
	if _, err := good.Install(context.Background(), r.job(spec)); err != nil {
		t.Fatalf("install: %v\n%s", err, r.prog.text())
	}
	if got := readFile(t, filepath.Join(r.root, "RustDedicated_Data/Managed/Assembly-CSharp.dll")); got != "patched by oxide" {
		t.Fatalf("after install: %q", got)
	}
	return r, spec
}

func TestUpdateCheck(t *testing.T) {
	r, spec := installed(t, "", 0)
	c, err := r.in.UpdateCheck(context.Background(), r.job(spec))
	if err != nil {
		t.Fatal(err)
	}
	if c.App != "258550" || c.Branch != "public" || c.Installed != "100" || c.Available != "100" || c.UpdateAvailable {
		t.Errorf("nothing to do: %+v", c)
	}
	r.steam.build(t, "258550", "public", "101", map[string]string{"RustDedicated": "server 101"})
	c, err = r.in.UpdateCheck(context.Background(), r.job(spec))
	if err != nil {
		t.Fatal(err)
	}
	if c.Installed != "100" || c.Available != "101" || !c.UpdateAvailable {
		t.Errorf("with an update: %+v", c)
	}
	_, err = r.in.UpdateCheck(context.Background(), r.job(template.Spec{TemplateID: "minecraft"}))
	if Code(err) != CodeNoSteam {
		t.Errorf("no steam step: %v", err)
	}
}

// The whole update: warn, stop, app_update, confirm, reapply Oxide over
// the file the update overwrote, start again; old and new builds.
func TestSteamUpdate_StopUpdateReapplyStart(t *testing.T) {
	r, spec := installed(t, "", 0)
	r.steam.build(t, "258550", "public", "101", map[string]string{
		"RustDedicated": "server 101", "RustDedicated_Data/Managed/Assembly-CSharp.dll": "vanilla 101"})
	h := &hooks{running: true}
	res, err := r.in.SteamUpdate(context.Background(), r.job(spec), UpdateOptions{Warn: 50 * time.Millisecond}, h.Hooks())
	if err != nil {
		t.Fatalf("update: %v\n%s", err, r.prog.text())
	}
	if res != (Result{OldBuild: "100", NewBuild: "101", Updated: true, Started: true}) {
		t.Errorf("result %+v", res)
	}
	want := []string{"warn: The server restarts for a game update in 1 second.", "stop", "start"}
	if got := h.got(); !slices.Equal(got, want) {
		t.Errorf("hooks %q, want %q", got, want)
	}
	if got := readFile(t, filepath.Join(r.root, "RustDedicated")); got != "server 101" {
		t.Errorf("RustDedicated = %q", got)
	}
	if got := readFile(t, filepath.Join(r.root, "RustDedicated_Data/Managed/Assembly-CSharp.dll")); got != "patched by oxide" {
		t.Errorf("Oxide was not reapplied: %q", got)
	}
	if !r.prog.has("game updated: build 100 → 101") || !r.prog.has("reapplying OxideMod/Oxide.Rust") {
		t.Errorf("progress:\n%s", r.prog.text())
	}
}

// A game without a broadcast command (Hooks.Warn nil): nobody is warned,
// the progress says so, and the stop still waits the warning's time.
func TestSteamUpdate_NoBroadcastStillWaits(t *testing.T) {
	r, spec := installed(t, "", 0)
	h := &hooks{running: true}
	hk := h.Hooks()
	hk.Warn = nil
	start := time.Now()
	if _, err := r.in.SteamUpdate(context.Background(), r.job(spec), UpdateOptions{Force: true, Warn: 300 * time.Millisecond}, hk); err != nil {
		t.Fatalf("update: %v\n%s", err, r.prog.text())
	}
	if got := h.got(); !slices.Equal(got, []string{"stop", "start"}) {
		t.Errorf("hooks %q", got)
	}
	if !r.prog.has("the game has no broadcast command: the players are not warned; stopping in 300ms") {
		t.Errorf("progress:\n%s", r.prog.text())
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("stopped after %s, before the warning's 300ms", d)
	}
}

// Nothing newer: no stop, no steamcmd update, nothing reapplied.
func TestSteamUpdate_NothingToDo(t *testing.T) {
	r, spec := installed(t, "", 0)
	runs := r.steam.runs(t)
	h := &hooks{running: true}
	res, err := r.in.SteamUpdate(context.Background(), r.job(spec), UpdateOptions{}, h.Hooks())
	if err != nil {
		t.Fatal(err)
	}
	if res != (Result{OldBuild: "100", NewBuild: "100"}) || len(h.got()) != 0 {
		t.Errorf("result %+v, hooks %q", res, h.got())
	}
	if n := r.steam.runs(t) - runs; n != 1 {
		t.Errorf("steamcmd ran %d times, want 1 (app_info_print)", n)
	}
	res, err = r.in.SteamUpdate(context.Background(), r.job(spec), UpdateOptions{Force: true}, h.Hooks())
	if err != nil || !res.Updated || !slices.Equal(h.got(), []string{"stop", "start"}) {
		t.Errorf("forced: %+v, %v, hooks %q", res, err, h.got())
	}
}

// A disk-full update: its code, the game left stopped (never started
// half-updated), the manifest showing the half-finished download.
func TestSteamUpdate_DiskFullLeavesGameStopped(t *testing.T) {
	r, spec := installed(t, "disk_full", 0)
	r.steam.build(t, "258550", "public", "101", map[string]string{"RustDedicated": "server 101", "a": "a", "b": "b"})
	h := &hooks{running: true}
	res, err := r.in.SteamUpdate(context.Background(), r.job(spec), UpdateOptions{}, h.Hooks())
	if Code(err) != steam.CodeDiskFull {
		t.Fatalf("code %q (%v), want %s", Code(err), err, steam.CodeDiskFull)
	}
	if !slices.Equal(h.got(), []string{"stop"}) || res.Started {
		t.Errorf("hooks %q, result %+v: want stopped, not started", h.got(), res)
	}
	m, err := steam.Installed(r.root, "258550")
	if err != nil || !m.HalfFinished() {
		t.Errorf("manifest after the failure: %+v, %v", m, err)
	}
	c, err := New(Options{Steam: r.steam.runner(t, "", 0), Log: testLogger(t)}).UpdateCheck(context.Background(), r.job(spec))
	if err != nil || !c.UpdateAvailable || !c.HalfFinished {
		t.Errorf("check after the failure: %+v, %v", c, err)
	}
}

// A stop that fails: no update, the error says so.
func TestSteamUpdate_StopFails(t *testing.T) {
	r, spec := installed(t, "", 0)
	r.steam.build(t, "258550", "public", "101", map[string]string{"RustDedicated": "server 101"})
	h := &hooks{running: true, stopErr: errors.New("stop timed out")}
	_, err := r.in.SteamUpdate(context.Background(), r.job(spec), UpdateOptions{}, h.Hooks())
	if Code(err) != CodeStop {
		t.Fatalf("code %q (%v)", Code(err), err)
	}
	if got := readFile(t, filepath.Join(r.root, "RustDedicated")); got != "server 100" {
		t.Errorf("updated anyway: %q", got)
	}
}

// oxide_install: Oxide or Carbon as FRAMEWORK says, from its latest
// release; vanilla has none (and the game is left alone). A running game
// is warned, stopped, and started again after the install; a failed
// install leaves it stopped.
func TestOxideInstall(t *testing.T) {
	r := newRig(t, "", 0)
	r.rel.release("OxideMod/Oxide.Rust", releaseReply{Tag: "v2", Assets: map[string][]byte{
		"Oxide.Rust-linux.zip": zipOf(t, map[string]string{"RustDedicated_Data/Managed/Oxide.Core.dll": "oxide v2"})}})
	r.rel.release("CarbonCommunity/Carbon", releaseReply{Tag: "v3", Assets: map[string][]byte{
		"Carbon.Linux.Release.tar.gz": tarGzOf(t, map[string]string{"carbon/managed/Carbon.Preloader.dll": "carbon v3"})}})
	stopped := &hooks{}
	res, err := r.in.OxideInstall(context.Background(), r.job(rustSpec(t, "oxide")), time.Second, stopped.Hooks())
	if err != nil || res.Started || len(stopped.got()) != 0 {
		t.Fatalf("stopped game: %+v, %v; hooks called %q", res, err, stopped.got())
	}
	if got := readFile(t, filepath.Join(r.root, "RustDedicated_Data/Managed/Oxide.Core.dll")); got != "oxide v2" {
		t.Errorf("oxide: %q", got)
	}
	running := &hooks{running: true}
	start := time.Now()
	res, err = r.in.OxideInstall(context.Background(), r.job(rustSpec(t, "carbon")), 50*time.Millisecond, running.Hooks())
	if err != nil || !res.Started {
		t.Fatalf("running game: %+v, %v", res, err)
	}
	want := []string{"warn: The server restarts for a mod framework install in 1 second.", "stop", "start"}
	if got := running.got(); !slices.Equal(got, want) || time.Since(start) < 50*time.Millisecond {
		t.Errorf("hooks %q, want %q after the warning's wait", got, want)
	}
	if got := readFile(t, filepath.Join(r.root, "carbon/managed/Carbon.Preloader.dll")); got != "carbon v3" {
		t.Errorf("carbon: %q", got)
	}
	vanilla := &hooks{running: true}
	_, err = r.in.OxideInstall(context.Background(), r.job(rustSpec(t, "vanilla")), time.Second, vanilla.Hooks())
	if Code(err) != CodeNoFramework || len(vanilla.got()) != 0 {
		t.Errorf("vanilla: %v; hooks called %q", err, vanilla.got())
	}
	r.rel.release("OxideMod/Oxide.Rust", releaseReply{Tag: "v3", Assets: map[string][]byte{"other.zip": nil}})
	failing := &hooks{running: true}
	_, err = r.in.OxideInstall(context.Background(), r.job(rustSpec(t, "oxide")), 0, failing.Hooks())
	if Code(err) != CodeNoAsset || !slices.Equal(failing.got(), []string{"stop"}) {
		t.Errorf("failed install: %v; hooks %q, want the game stopped and left so", err, failing.got())
	}
	if _, err := os.Stat(filepath.Join(r.steam.home, "fakesteamcmd.runs")); err == nil {
		t.Error("oxide_install ran steamcmd")
	}
}

// BenchmarkUpdateCheck is update_check with nothing to do against the fake
// steamcmd (goal ≤ 1 s): the manifest read, the stale appinfo.vdf removed,
// one steamcmd app_info_print run and its dump parsed. The baseline is the
// same steamcmd run alone (process start, output read), what a cron job
// that greps app_info_print pays.
func BenchmarkUpdateCheck(b *testing.B) {
	r, spec := installed(b, "", 0)
	b.Run("baseline", func(b *testing.B) {
		app := spec.Sources[0].SteamCMD.AppID
		for b.Loop() {
			cmd := exec.Command(r.steam.bin, steam.AppInfoArgs(strconv.Itoa(app))...)
			cmd.Env = append(testbin.Env(), "FAKESTEAMCMD_HOME="+r.steam.home, "FAKESTEAMCMD_DEPOT="+r.steam.depot)
			if out, err := cmd.Output(); err != nil || len(out) == 0 {
				b.Fatalf("app_info_print: %v (%d bytes)", err, len(out))
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/check")
	})
	b.Run("corrosion", func(b *testing.B) {
		for b.Loop() {
			c, err := r.in.UpdateCheck(context.Background(), r.job(spec))
			if err != nil || c.UpdateAvailable {
				b.Fatalf("%+v, %v", c, err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/check")
	})
}
