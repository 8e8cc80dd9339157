package agent_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
)

// TestTemplatesAndCreate_RefusedWhenProvisioningOff: instance_create on a
// host without provisioning is provisioning_disabled.
func TestInstanceCreate_RefusedWhenProvisioningOff(t *testing.T) {
	h := newHarness(t, 60, "")
	h.mustErr(h.call(wire.HostCmdSubject(license), `{"func":"instance_create","id":"a","template":"minetest"}`),
		wire.CodeProvisioningDisabled)
}

// TestInstanceCreate_Refusals: each refusal has its code and names the
// field, and leaves nothing behind: no root, no record, no instance.
func TestInstanceCreate_Refusals(t *testing.T) {
	rconPort := natstest.FreePort(t)
	p := newProvHarness(t, fmt.Sprintf(`[[instance]]
id = "hostdef"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
[instance.rcon]
kind = "source"
port = %d
password = "pw"
`, rconPort))
	taken := natstest.FreePort(t)
	p.mustOK(p.create("first", map[string]string{"GAME_PORT": fmt.Sprint(taken)}))

	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	heldPort := held.Addr().(*net.TCPAddr).Port

	outside := t.TempDir()
	if err := os.MkdirAll(p.instancesRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(p.instancesRoot, "escape")); err != nil {
		t.Fatal(err)
	}
	port := func() string { return fmt.Sprint(natstest.FreePort(t)) }
	shTemplate := strings.Replace(p.template, `program = "`, `program = "/bin/sh" #`, 1)

	cases := []struct {
		name, id, template, toml string
		values                   map[string]string
		code, field, says        string
	}{
		{"bad id", "Bad.ID", "", p.template, map[string]string{"GAME_PORT": port()}, wire.CodeBadID, "id", "not a valid instance id"},
		{"id host", "host", "", p.template, map[string]string{"GAME_PORT": port()}, wire.CodeBadID, "id", "not a valid instance id"},
		{"id of agent.toml", "hostdef", "", p.template, map[string]string{"GAME_PORT": port()}, wire.CodeInstanceExists, "id", "already exists"},
		{"unknown template", "u1", "no-such-game", "", nil, wire.CodeUnknownTemplate, "template", `no template "no-such-game"`},
		{"template_toml does not parse", "u2", "", "id = [", nil, wire.CodeInvalidValue, "template_toml", "does not parse"},
		{"template_toml invalid", "u3", "", strings.Replace(p.template, `version = 1`, `version = 0`, 1), nil,
			wire.CodeInvalidValue, "template_toml", "version"},
		{"template names another", "u4", "minetest", p.template, map[string]string{"GAME_PORT": port()},
			wire.CodeInvalidValue, "template", "another template"},
		{"variable missing", "u5", "", p.template, nil, wire.CodeInvalidValue, "GAME_PORT", "GAME_PORT"},
		{"variable out of range", "u6", "", p.template, map[string]string{"GAME_PORT": "70000"}, wire.CodeInvalidValue, "GAME_PORT", "GAME_PORT"},
		{"variable too long", "u7", "", p.template, map[string]string{"GAME_PORT": port(), "MOTD": strings.Repeat("x", 41)},
			wire.CodeInvalidValue, "MOTD", "MOTD"},
		{"unknown variable", "u8", "", p.template, map[string]string{"GAME_PORT": port(), "NOPE": "1"}, wire.CodeInvalidValue, "NOPE", "NOPE"},
		{"program not allowed", "u9", "", shTemplate, map[string]string{"GAME_PORT": port()},
			wire.CodeProgramNotAllowed, "run.program", "allowed_programs"},
		{"root is a symlink out", "escape", "", p.template, map[string]string{"GAME_PORT": port()}, wire.CodeRootEscape, "id", "symbolic link"},
		{"port of another created instance", "u10", "", p.template, map[string]string{"GAME_PORT": fmt.Sprint(taken)},
			wire.CodePortInUse, "GAME_PORT", "declared by instance first"},
		{"port of an agent.toml rcon", "u11", "", p.template, map[string]string{"GAME_PORT": fmt.Sprint(rconPort)},
			wire.CodePortInUse, "GAME_PORT", "declared by instance hostdef"},
		{"port held by a process", "u12", "", p.template, map[string]string{"GAME_PORT": fmt.Sprint(heldPort)},
			wire.CodePortInUse, "GAME_PORT", fmt.Sprintf("pid %d", os.Getpid())},
		{"label with a control character", "u13", "", p.template, map[string]string{"GAME_PORT": port()},
			wire.CodeInvalidValue, "label", "control"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := wire.InstanceCreateRequest{Func: wire.FuncInstanceCreate, ID: c.id, Template: c.template,
				TemplateTOML: c.toml, Values: c.values}
			if c.field == "label" {
				req.Label = "bad\x07label"
			}
			body, _ := json.Marshal(req)
			rep := p.call(wire.HostCmdSubject(license), string(body))
			msg := p.mustErr(rep, c.code)
			if rep["field"] != c.field {
				t.Errorf("field %v, want %q (%s)", rep["field"], c.field, msg)
			}
			if !strings.Contains(msg, c.says) {
				t.Errorf("message %q does not say %q", msg, c.says)
			}
			if strings.Contains(msg, "s3cret") {
				t.Errorf("message %q shows a secret", msg)
			}
			if c.id == "escape" || c.id == "hostdef" {
				return // exists before, on purpose
			}
			if _, err := os.Lstat(filepath.Join(p.instancesRoot, c.id)); err == nil {
				t.Errorf("refused create left its root behind")
			}
			if _, err := os.Stat(filepath.Join(p.dir, "state", "provisioned", c.id+".json")); err == nil {
				t.Errorf("refused create left its record behind")
			}
			if wire.ValidInstanceID(c.id) {
				p.mustErr(p.cmd(c.id, `{"func":"status"}`), wire.CodeUnknownInstance)
			}
		})
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("the symlink's target was written to: %v", entries)
	}
}
