package agent_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// steamTemplate installs app 258550 with steamcmd and a plugin zip over
// http (URL and SHA256 filled in by the test).
const steamTemplate = `
id = "steamy"
name = "Steamy"
game = "generic"
version = 1

[[variable]]
key = "GAME_PORT"
type = "port"
required = true

[[port]]
name = "game"
protocol = "tcp"
variable = "GAME_PORT"

[[source]]
[source.steamcmd]
app_id = 258550
validate = "install_only"

[[source]]
[source.http]
url = "URL"
sha256 = "SHA"
extract = "zip"
into = "plugins"

[run]
program = "PROGRAM"
args = ["-ready-after", "20ms"]

[run.ready]
regex = "^Server ready"
timeout = "30s"
`

// The real agent binary, an instance created with instance_create, and
// the fake steamcmd found on the agent's PATH: install (steamcmd and an
// http zip), update_check, steam_update of the running game (old and new
// build, started again); agent.toml's instance is not_provisioned.
func TestTasks_CreatedInstance_RealAgent(t *testing.T) {
	steamDir, depot := t.TempDir(), t.TempDir()
	if err := os.Symlink(testbin.Build(t, "./tools/fakesteamcmd"), filepath.Join(steamDir, "steamcmd")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", steamDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKESTEAMCMD_HOME", steamDir) // its appcache/ next to it, as the agent assumes
	t.Setenv("FAKESTEAMCMD_DEPOT", depot)
	depotBuild(t, depot, "100")
	zipURL, zipSum := servePluginZip(t)

	p := newProvHarness(t, `[[instance]]
id = "plain"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
`)
	p.template = strings.NewReplacer("URL", zipURL, "SHA", zipSum).Replace(strings.ReplaceAll(steamTemplate, "PROGRAM", p.game))
	p.mustOK(p.create("steamy1", map[string]string{"GAME_PORT": fmt.Sprint(natstest.FreePort(t))}))
	p.mustErr(p.cmd("plain", `{"func":"install"}`), wire.CodeNotProvisioned)

	if rep := p.mustOK(p.cmd("steamy1", `{"func":"install"}`)); rep["task"] != wire.FuncInstall {
		t.Fatalf("install reply %v", rep)
	}
	ev := p.taskEnd("steamy1", 1)
	if ev.Task.Result != wire.TaskOK || ev.Task.NewBuild != "100" {
		t.Fatalf("install: %+v", ev.Task)
	}
	root := filepath.Join(p.instancesRoot, "steamy1")
	for rel, want := range map[string]string{"RustDedicated": "server 100", "plugins/p.dll": "plugin"} {
		if b, err := os.ReadFile(filepath.Join(root, rel)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", rel, b, err, want)
		}
	}
	p.waitLine("steamy1", "install: steamcmd: app_update 258550")

	check := p.mustOK(p.cmd("steamy1", `{"func":"update_check"}`))
	if check["installed_build"] != "100" || check["update_available"] != false {
		t.Errorf("update_check: %v", check)
	}
	depotBuild(t, depot, "101")
	p.mustOK(p.cmd("steamy1", `{"func":"start","wait":true}`))
	p.mustOK(p.cmd("steamy1", `{"func":"steam_update"}`))
	ev = p.taskEnd("steamy1", 3)
	if ev.Task.Task != wire.FuncSteamUpdate || ev.Task.Result != wire.TaskOK || ev.Task.OldBuild != "100" || ev.Task.NewBuild != "101" {
		t.Fatalf("steam_update: %+v", ev.Task)
	}
	p.waitState("steamy1", string(wire.StateRunning))
}

// taskEnd waits for the n-th status event of id that ends a task.
func (p *provHarness) taskEnd(id string, n int) wire.StateEvent {
	p.t.Helper()
	var ev wire.StateEvent
	poll.Until(p.t, 60*time.Second, func() error {
		seen := 0
		for _, e := range p.events(id) {
			if e.Task != nil {
				if seen++; seen == n {
					ev = e
					return nil
				}
			}
		}
		return fmt.Errorf("%d task results of %s, want %d", seen, id, n)
	})
	return ev
}

// depotBuild adds build b of app 258550 to the fake steamcmd's depot.
func depotBuild(t *testing.T, depot, b string) {
	t.Helper()
	p := filepath.Join(depot, "258550", "public", b, "RustDedicated")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("server "+b), 0o755); err != nil {
		t.Fatal(err)
	}
}

// servePluginZip serves a zip on 127.0.0.1 and returns its URL and SHA-256.
func servePluginZip(t *testing.T) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("p.dll")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("plugin")); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(buf.Bytes()) })) // on 127.0.0.1
	t.Cleanup(srv.Close)
	sum := sha256.Sum256(buf.Bytes())
	return srv.URL + "/plugin.zip", hex.EncodeToString(sum[:])
}
