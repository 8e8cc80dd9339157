//go:build unix

package agent_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/rcon/rcontest"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

const rconPassword = "s3cret-pw"

func rconInstance(id, game, kind string, port int, password string) string {
	return fmt.Sprintf(`
[[instance]]
id = %q
game = %q
root = "{{root}}"
exec = "{{game}}"
[instance.rcon]
kind = %q
port = %d
password = %q
`, id, game, kind, port, password)
}

func TestAgent_RCONSource(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 64<<10/16*4) // 256 KiB: many packets
	srv := rcontest.NewSource(t, rcontest.SourceOptions{Password: rconPassword, Handler: func(cmd string) string {
		switch cmd {
		case "big":
			return big
		case "status":
			return "hostname: test\nplayers : 3"
		}
		return "unknown command: " + cmd
	}})
	dead := natstest.FreePort(t)
	h := newHarness(t, 60, rconInstance("conan1", "conan", "", srv.Port(), rconPassword)+
		rconInstance("badpw", "soulmask", "", srv.Port(), "wrong-"+rconPassword)+
		rconInstance("refused", "generic", "source", dead, rconPassword))

	h.mustErr(h.cmd("conan1", `{"func":"rcon","command":"status"}`), wire.CodeNotRunning)
	for _, id := range []string{"conan1", "badpw", "refused"} {
		h.mustOK(h.cmd(id, `{"func":"start","wait":true}`))
	}
	rep := h.mustOK(h.cmd("conan1", `{"func":"rcon","command":"status"}`))
	if rep["output"] != "hostname: test\nplayers : 3" {
		t.Fatalf("output %q", rep["output"])
	}
	rep = h.mustOK(h.cmd("conan1", `{"func":"rcon","command":"big"}`))
	if rep["output"] != big {
		t.Fatalf("multi-packet output: %d bytes, want %d", len(rep["output"].(string)), len(big))
	}
	h.mustErr(h.cmd("conan1", `{"func":"rcon"}`), wire.CodeBadArgs)

	tests := []struct{ id, code string }{{"badpw", "rcon_auth"}, {"refused", "rcon_refused"}}
	for _, tt := range tests {
		msg := h.mustErr(h.cmd(tt.id, `{"func":"rcon","command":"status"}`), tt.code)
		if strings.Contains(msg, rconPassword) {
			t.Fatalf("%s: the password leaked into the error: %q", tt.id, msg)
		}
	}
	if strings.Contains(h.agentOut.String(), rconPassword) {
		t.Fatal("the password leaked into the agent log")
	}
}

func TestAgent_RCONWebForwardsChatToConsole(t *testing.T) {
	srv := rcontest.NewWeb(t, rcontest.WebOptions{Password: rconPassword, Noise: true,
		Handler: func(cmd string) string { return "ran " + cmd }})
	h := newHarness(t, 60, rconInstance("rust1", "rust", "", srv.Port(), rconPassword))
	h.mustOK(h.cmd("rust1", `{"func":"start","wait":true}`))
	rep := h.mustOK(h.cmd("rust1", `{"func":"rcon","command":"serverinfo"}`))
	if rep["output"] != "ran serverinfo" {
		t.Fatalf("output %q", rep["output"])
	}
	srv.Broadcast("[CHAT] player1: hello everyone")
	h.waitLine("rust1", "[CHAT] player1: hello everyone")
	logs := h.mustOK(h.cmd("rust1", `{"func":"logs","lines":500}`))
	if !strings.Contains(fmt.Sprint(logs["lines"]), "hello everyone") {
		t.Fatal("forwarded chat is not in the console backlog")
	}
}

func TestAgent_FilesOverNATS(t *testing.T) {
	h := newHarness(t, 60, `
[[instance]]
id = "game1"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
[instance.files]
deny = ["*.secret"]
`)
	root := filepath.Join(h.dir, "root")
	outside := filepath.Join(h.dir, "outside.txt")
	writeFile(t, outside, "keep me")
	files := func(body string) map[string]any {
		t.Helper()
		return h.call(wire.FilesCmdSubject(license, "game1"), body)
	}
	h.mustOK(files(`{"func":"fm_mkdir","path":"cfg"}`))
	h.mustOK(files(`{"func":"fm_save","path":"cfg/server.cfg","content":"maxplayers=10\n"}`))
	rep := h.mustOK(files(`{"func":"fm_read","path":"cfg/server.cfg"}`))
	if rep["content"] != "maxplayers=10\n" || rep["encoding"] != "utf8" {
		t.Fatalf("read %v", rep)
	}
	bin := base64.StdEncoding.EncodeToString([]byte{0, 1, 2, 255})
	h.mustOK(files(`{"func":"fm_save","path":"blob.bin","content":"` + bin + `","encoding":"base64"}`))
	if rep := h.mustOK(files(`{"func":"fm_read","path":"blob.bin"}`)); rep["encoding"] != "base64" || rep["content"] != bin {
		t.Fatalf("binary read %v", rep)
	}
	list := h.mustOK(files(`{"func":"fm_list","path":""}`))
	entries := list["entries"].([]any)
	if len(entries) < 2 || entries[0].(map[string]any)["type"] != "dir" {
		t.Fatalf("list %v", entries)
	}
	if err := os.WriteFile(filepath.Join(root, "db.secret"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, body, code string }{
		{"escape", `{"func":"fm_read","path":"../outside.txt"}`, "outside_root"},
		{"overwrite outside", `{"func":"fm_save","path":"../outside.txt","content":"pwned"}`, "outside_root"},
		{"denied", `{"func":"fm_read","path":"db.secret"}`, "denied"},
		{"missing", `{"func":"fm_stat","path":"nope"}`, "not_found"},
		{"unknown", `{"func":"fm_explode","path":""}`, wire.CodeUnknownFunc},
		{"missing arg", `{"func":"fm_read"}`, wire.CodeBadArgs},
	}
	for _, tt := range tests {
		if rep := files(tt.body); rep["status"] != "error" || rep["code"] != tt.code {
			t.Errorf("%s: want error %s, got %v", tt.name, tt.code, rep)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep me" {
		t.Fatalf("a file outside the root changed: %q", b)
	}
	poll.True(t, time.Second, "agent still serving", func() bool {
		return h.cmd("game1", `{"func":"status"}`)["status"] == "success"
	})
}

// TestAgent_FilesHardLinksOverNATS: a hard link inside a root to a file
// outside it is neither read nor chmodded through the agent, unless
// [instance.files] allow_hardlinks lets its content out (chmod stays
// refused).
func TestAgent_FilesHardLinksOverNATS(t *testing.T) {
	h := newHarness(t, 60, `
[[instance]]
id = "strict"
game = "generic"
root = "{{root}}/strict"

[[instance]]
id = "lenient"
game = "generic"
root = "{{root}}/lenient"
[instance.files]
allow_hardlinks = true
`)
	outside := filepath.Join(h.dir, "outside.txt")
	writeFile(t, outside, "outside secret")
	for _, id := range []string{"strict", "lenient"} {
		dir := filepath.Join(h.dir, "root", id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(outside, filepath.Join(dir, "ln")); err != nil {
			t.Fatal(err)
		}
	}
	files := func(id, body string) map[string]any {
		t.Helper()
		return h.call(wire.FilesCmdSubject(license, id), body)
	}
	h.mustErr(files("strict", `{"func":"fm_read","path":"ln"}`), "hard_link")
	h.mustErr(files("strict", `{"func":"fm_copy","from":"ln","to":"c"}`), "hard_link")
	if rep := h.mustOK(files("lenient", `{"func":"fm_read","path":"ln"}`)); rep["content"] != "outside secret" {
		t.Fatalf("allowed read %v", rep)
	}
	for _, id := range []string{"strict", "lenient"} {
		h.mustErr(files(id, `{"func":"fm_chmod","path":"ln","mode":"0777"}`), "hard_link")
	}
	if fi, err := os.Stat(outside); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the outside file's mode changed: %v, %v", fi, err)
	}
}
