package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/steam"
	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/internal/poll"
)

// rig is an Installer on the fake steamcmd and a local release server.
type rig struct {
	steam *fakeSteam
	rel   *releases
	in    *Installer
	root  string
	prog  *progress
}

func newRig(t testing.TB, mode string, failRuns int) *rig {
	t.Helper()
	r := &rig{steam: newFakeSteam(t), rel: newReleases(t), root: filepath.Join(t.TempDir(), "inst"), prog: &progress{}}
	r.steam.build(t, "258550", "public", "100", map[string]string{
		"RustDedicated": "server 100", "RustDedicated_Data/Managed/Assembly-CSharp.dll": "vanilla 100"})
	r.in = New(Options{Steam: r.steam.runner(t, mode, failRuns), GitHubAPI: r.rel.srv.URL + "/api", Log: testLogger(t)})
	return r
}

func (r *rig) job(s template.Spec) Job { return Job{Spec: s, Root: r.root, Progress: r.prog.add} }

func steamStep(app int) template.Source {
	return template.Source{SteamCMD: &template.SteamCMD{AppID: app, Platform: template.PlatformLinux, Validate: template.ValidateInstallOnly}}
}

// Install runs every kind of step in order, then the config edits, and
// leaves no staging directory behind.
func TestInstall_AllSteps(t *testing.T) {
	r := newRig(t, "", 0)
	r.steam.build(t, "1007", "public", "7", map[string]string{"linux64/steamclient.so": "sdk"})
	jar := []byte("a server jar")
	maps := zipOf(t, map[string]string{"maps/a.map": "A", "maps/b.map": "B"})
	plugin := tarGzOf(t, map[string]string{"plugins/p.dll": "plugin", "plugins/README": "read me"})
	r.rel.release("acme/plugins", releaseReply{Tag: "v2", Assets: map[string][]byte{"p.tar.gz": plugin, "other.zip": nil}, Digest: true})
	spec := template.Spec{TemplateID: "t",
		Sources: []template.Source{
			{SteamCMD: &template.SteamCMD{AppID: 258550, ExtraApps: []int{1007}, Validate: template.ValidateInstallOnly}},
			{HTTP: &template.HTTP{URL: r.rel.file("/files/server.jar", jar), SHA256: sum(jar), Into: "bin"}},
			{HTTP: &template.HTTP{URL: r.rel.file("/files/maps.zip", maps), SHA256: strings.ToUpper(sum(maps)), Extract: template.ExtractZip}},
			{GitHubRelease: &template.GitHubRelease{Repo: "acme/plugins", Asset: "p.tar.gz", Extract: template.ExtractTarGz, Into: "game"}},
		},
		Configs: []template.ConfigFile{{Path: "cfg/server.properties", Format: template.FormatProperties, Set: map[string]string{"server-port": "27015"}}},
	}
	res, err := r.in.Install(context.Background(), r.job(spec))
	if err != nil {
		t.Fatalf("install: %v\n%s", err, r.prog.text())
	}
	if res.NewBuild != "100" {
		t.Errorf("new build %q, want 100", res.NewBuild)
	}
	for p, want := range map[string]string{
		"RustDedicated":                  "server 100",
		"linux64/steamclient.so":         "sdk",
		"bin/server.jar":                 "a server jar",
		"maps/a.map":                     "A",
		"maps/b.map":                     "B",
		"game/plugins/p.dll":             "plugin",
		"cfg/server.properties":          "server-port=27015\n",
		"steamapps/appmanifest_1007.acf": "",
	} {
		got := readFile(t, filepath.Join(r.root, p))
		if want != "" && got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(r.root, stagingDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("staging directory left behind: %v", err)
	}
	for _, want := range []string{"steamcmd: app_update 258550 (branch public, validate)", "steamcmd: app_update 1007", "downloaded 12 bytes, sha256 verified",
		"github release acme/plugins v2: p.tar.gz", "unpacked", "install finished"} {
		if !r.prog.has(want) {
			t.Errorf("progress lacks %q:\n%s", want, r.prog.text())
		}
	}
}

// A beta's password reaches steamcmd but never a progress line.
func TestInstall_BetaPasswordNeverShown(t *testing.T) {
	r := newRig(t, "", 0)
	r.steam.build(t, "258550", "locked", "300", map[string]string{"RustDedicated": "server 300"})
	writeFile(t, filepath.Join(r.steam.depot, "258550", "locked", ".password"), "hunter22\n")
	spec := template.Spec{Sources: []template.Source{{SteamCMD: &template.SteamCMD{AppID: 258550, Branch: "locked", BetaPassword: "hunter22"}}}}
	res, err := r.in.Install(context.Background(), r.job(spec))
	if err != nil || res.NewBuild != "300" {
		t.Fatalf("install: %v, build %q", err, res.NewBuild)
	}
	if r.prog.has("hunter22") {
		t.Errorf("the password reached the progress:\n%s", r.prog.text())
	}
}

// Bad downloads and archives: a clear code, and the root exactly as it
// was (no file of the step, no staging directory).
func TestInstall_BadDownloadLeavesRootUnchanged(t *testing.T) {
	good := []byte("good")
	cases := []struct {
		name string
		src  func(t *testing.T, r *rig) template.Source
		code string
	}{
		{"wrong sha256", func(t *testing.T, r *rig) template.Source {
			return template.Source{HTTP: &template.HTTP{URL: r.rel.file("/f/x.jar", good), SHA256: sum([]byte("other"))}}
		}, CodeSHA256Mismatch},
		{"corrupt zip", func(t *testing.T, r *rig) template.Source {
			b := []byte("PK\x03\x04 this is not a zip archive at all")
			return template.Source{HTTP: &template.HTTP{URL: r.rel.file("/f/x.zip", b), SHA256: sum(b), Extract: template.ExtractZip}}
		}, CodeCorruptArchive},
		{"corrupt tar.gz", func(t *testing.T, r *rig) template.Source {
			b := tarGzOf(t, map[string]string{"a": strings.Repeat("a", 5000)})
			b = b[:len(b)/2]
			return template.Source{HTTP: &template.HTTP{URL: r.rel.file("/f/x.tar.gz", b), SHA256: sum(b), Extract: template.ExtractTarGz}}
		}, CodeCorruptArchive},
		{"zip slip", func(t *testing.T, r *rig) template.Source {
			b := zipOf(t, map[string]string{"ok.txt": "fine", "../../evil.txt": "owned"})
			return template.Source{HTTP: &template.HTTP{URL: r.rel.file("/f/x.zip", b), SHA256: sum(b), Extract: template.ExtractZip, Into: "mods"}}
		}, CodeUnsafeArchive},
		{"absolute entry", func(t *testing.T, r *rig) template.Source {
			b := zipOf(t, map[string]string{"/etc/evil": "owned"})
			return template.Source{HTTP: &template.HTTP{URL: r.rel.file("/f/x.zip", b), SHA256: sum(b), Extract: template.ExtractZip}}
		}, CodeUnsafeArchive},
		{"404", func(t *testing.T, r *rig) template.Source {
			return template.Source{HTTP: &template.HTTP{URL: r.rel.srv.URL + "/missing.jar", SHA256: sum(good)}}
		}, CodeDownload},
		{"no such asset", func(t *testing.T, r *rig) template.Source {
			r.rel.release("acme/x", releaseReply{Tag: "v1", Assets: map[string][]byte{"x-windows.zip": good}})
			return template.Source{GitHubRelease: &template.GitHubRelease{Repo: "acme/x", Asset: "x-linux.zip", Extract: template.ExtractZip}}
		}, CodeNoAsset},
		{"digest mismatch", func(t *testing.T, r *rig) template.Source {
			r.rel.release("acme/y", releaseReply{Tag: "v1", Assets: map[string][]byte{"y.jar": good}, BadDigest: true})
			return template.Source{GitHubRelease: &template.GitHubRelease{Repo: "acme/y", Asset: "y.jar"}}
		}, CodeSHA256Mismatch},
		{"file over directory", func(t *testing.T, r *rig) template.Source {
			b := zipOf(t, map[string]string{"existing": "a file where a directory is"})
			return template.Source{HTTP: &template.HTTP{URL: r.rel.file("/f/x.zip", b), SHA256: sum(b), Extract: template.ExtractZip}}
		}, CodeConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, "", 0)
			writeFile(t, filepath.Join(r.root, "existing", "keep.txt"), "kept")
			before := tree(t, r.root)
			spec := template.Spec{Sources: []template.Source{tc.src(t, r)}}
			_, err := r.in.Install(context.Background(), r.job(spec))
			if Code(err) != tc.code {
				t.Fatalf("code %q (%v), want %q", Code(err), err, tc.code)
			}
			if after := tree(t, r.root); !equalTrees(before, after) {
				t.Errorf("root changed:\nbefore %v\nafter  %v", before, after)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(r.root), "evil.txt")); err == nil {
				t.Error("an entry escaped the root")
			}
		})
	}
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// overwrite = false keeps a file that is already there; true replaces it.
func TestInstall_Overwrite(t *testing.T) {
	for _, overwrite := range []bool{false, true} {
		r := newRig(t, "", 0)
		writeFile(t, filepath.Join(r.root, "cfg.txt"), "mine")
		b := zipOf(t, map[string]string{"cfg.txt": "theirs", "new.txt": "new"})
		r.rel.release("acme/o", releaseReply{Tag: "v1", Assets: map[string][]byte{"o.zip": b}})
		spec := template.Spec{Sources: []template.Source{{GitHubRelease: &template.GitHubRelease{Repo: "acme/o", Asset: "o.zip", Extract: template.ExtractZip, Overwrite: overwrite}}}}
		if _, err := r.in.Install(context.Background(), r.job(spec)); err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{false: "mine", true: "theirs"}[overwrite]
		if got := readFile(t, filepath.Join(r.root, "cfg.txt")); got != want {
			t.Errorf("overwrite %v: cfg.txt = %q, want %q", overwrite, got, want)
		}
		if got := readFile(t, filepath.Join(r.root, "new.txt")); got != "new" {
			t.Errorf("overwrite %v: new.txt = %q", overwrite, got)
		}
	}
}

// steamcmd's exit 7 (it updated itself) is retried; 0x202 is not, and
// its code comes back.
func TestInstall_SteamStates(t *testing.T) {
	r := newRig(t, "self_update", 1)
	spec := template.Spec{Sources: []template.Source{steamStep(258550)}}
	if _, err := r.in.Install(context.Background(), r.job(spec)); err != nil {
		t.Fatalf("install after a self-update: %v", err)
	}
	if n := r.steam.runs(t); n != 2 {
		t.Errorf("steamcmd ran %d times, want 2 (exit 7 retried)", n)
	}
	r = newRig(t, "disk_full", 0)
	_, err := r.in.Install(context.Background(), r.job(spec))
	if Code(err) != steam.CodeDiskFull || r.steam.runs(t) != 1 {
		t.Fatalf("disk full: code %q (%v) after %d runs, want %s after 1", Code(err), err, r.steam.runs(t), steam.CodeDiskFull)
	}
}

// A steamcmd that hangs is killed at its limit: steam_timeout.
func TestInstall_SteamHangKilledAtLimit(t *testing.T) {
	r := newRig(t, "hang", 0)
	r.in.steam.Limit = time.Second
	start := time.Now()
	_, err := r.in.Install(context.Background(), r.job(template.Spec{Sources: []template.Source{steamStep(258550)}}))
	if Code(err) != steam.CodeTimeout {
		t.Fatalf("code %q (%v), want %s", Code(err), err, steam.CodeTimeout)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s", took)
	}
}

// One steamcmd run at a time per host: a second task waits and says so.
func TestInstaller_OneSteamCMDAtATime(t *testing.T) {
	r := newRig(t, "", 0)
	release := make(chan struct{})
	held := make(chan struct{})
	go func() {
		_ = r.in.withSteam(context.Background(), &Job{}, func(*steam.Runner) error { close(held); <-release; return nil })
	}()
	<-held
	second := &progress{}
	done := make(chan error, 1)
	go func() {
		done <- r.in.withSteam(context.Background(), &Job{Progress: second.add}, func(*steam.Runner) error { return nil })
	}()
	poll.True(t, 10*time.Second, "the second run says it waits", func() bool { return second.has("waiting for another steamcmd run") })
	select {
	case err := <-done:
		t.Fatalf("the second run did not wait: %v", err)
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.in.steamTurn <- struct{}{}
	cancel()
	if err := r.in.withSteam(ctx, &Job{}, func(*steam.Runner) error { return nil }); Code(err) != CodeCanceled {
		t.Errorf("a canceled wait: %v", err)
	}
}

// A config edit that fails leaves the file as it was.
func TestApplyConfigs(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "server.cfg"), "hostname old\nrcon.password \"x\"\n")
	err := ApplyConfigs(root, []template.ConfigFile{{Path: "server.cfg", Format: template.FormatLinePrefix, Set: map[string]string{"rcon.password ": `"new"`}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(root, "server.cfg")); got != "hostname old\nrcon.password \"new\"\n" {
		t.Errorf("edited: %q", got)
	}
	writeFile(t, filepath.Join(root, "bad.json"), "{not json")
	err = ApplyConfigs(root, []template.ConfigFile{{Path: "bad.json", Format: template.FormatJSON, Set: map[string]string{"a": "1"}}})
	if err == nil || readFile(t, filepath.Join(root, "bad.json")) != "{not json" {
		t.Errorf("bad json: err %v, file %q", err, readFile(t, filepath.Join(root, "bad.json")))
	}
	if err := os.Symlink("/etc", filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	err = ApplyConfigs(root, []template.ConfigFile{{Path: "out/x.properties", Format: template.FormatProperties, Set: map[string]string{"a": "1"}}})
	if err == nil {
		t.Error("an edit through a symlink out of the root was not refused")
	}
}

// into through a symlink that leads out of the root: refused, nothing
// written outside (os.Root), the staging directory gone.
func TestInstall_IntoSymlinkOutOfRoot(t *testing.T) {
	r := newRig(t, "", 0)
	outside := t.TempDir()
	if err := os.MkdirAll(r.root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r.root, "mods")); err != nil {
		t.Fatal(err)
	}
	b := zipOf(t, map[string]string{"evil.dll": "owned"})
	spec := template.Spec{Sources: []template.Source{{HTTP: &template.HTTP{URL: r.rel.file("/f/m.zip", b), SHA256: sum(b), Extract: template.ExtractZip, Into: "mods"}}}}
	_, err := r.in.Install(context.Background(), r.job(spec))
	if Code(err) != CodeUnsafeArchive {
		t.Fatalf("code %q (%v), want %s", Code(err), err, CodeUnsafeArchive)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the root: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(r.root, stagingDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("staging directory left behind: %v", err)
	}
}
