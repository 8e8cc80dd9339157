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

// TestProvisioning_RefusedWhenOff: the provisioning funcs on a host
// without provisioning are provisioning_disabled.
func TestProvisioning_RefusedWhenOff(t *testing.T) {
	h := newHarness(t, 60, "")
	for _, body := range []string{`{"func":"instance_create","id":"a","template":"minetest"}`,
		`{"func":"instance_update","id":"a","values":{"X":"1"}}`, `{"func":"instance_delete","id":"a","force":true}`} {
		h.mustErr(h.call(wire.HostCmdSubject(license), body), wire.CodeProvisioningDisabled)
	}
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

// TestInstanceUpdateDelete_Refusals: update and delete refuse, naming the
// field, and change nothing: an agent.toml instance (host_defined), an
// unknown or bad id, a value that breaks its rule, a port another
// instance declares.
func TestInstanceUpdateDelete_Refusals(t *testing.T) {
	p := newProvHarness(t, hostDefined)
	portA, portB := natstest.FreePort(t), natstest.FreePort(t)
	p.mustOK(p.create("a", map[string]string{"GAME_PORT": fmt.Sprint(portA)}))
	p.mustOK(p.create("b", map[string]string{"GAME_PORT": fmt.Sprint(portB)}))
	stored := filepath.Join(p.dir, "state", "provisioned", "a.json")
	before, err := os.ReadFile(stored)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, body, code, field string
	}{
		{"update agent.toml's", `{"func":"instance_update","id":"hostdef","values":{"MOTD":"x"}}`, wire.CodeHostDefined, "id"},
		{"delete agent.toml's", `{"func":"instance_delete","id":"hostdef","force":true,"purge":true}`, wire.CodeHostDefined, "id"},
		{"update unknown", `{"func":"instance_update","id":"nope","values":{"MOTD":"x"}}`, wire.CodeUnknownInstance, "id"},
		{"delete unknown", `{"func":"instance_delete","id":"nope"}`, wire.CodeUnknownInstance, "id"},
		{"update bad id", `{"func":"instance_update","id":"../a"}`, wire.CodeBadID, "id"},
		{"delete bad id", `{"func":"instance_delete","id":""}`, wire.CodeBadID, "id"},
		{"update bad value", `{"func":"instance_update","id":"a","values":{"MOTD":"` + strings.Repeat("x", 41) + `"}}`,
			wire.CodeInvalidValue, "MOTD"},
		{"update unknown variable", `{"func":"instance_update","id":"a","values":{"NOPE":"1"}}`, wire.CodeInvalidValue, "NOPE"},
		{"update to another's port", fmt.Sprintf(`{"func":"instance_update","id":"a","values":{"GAME_PORT":"%d"}}`, portB),
			wire.CodePortInUse, "GAME_PORT"},
		{"update bad label", `{"func":"instance_update","id":"a","label":"` + strings.Repeat("l", 101) + `"}`, wire.CodeInvalidValue, "label"},
		{"update values of the wrong type", `{"func":"instance_update","id":"a","values":{"MOTD":1}}`, wire.CodeBadArgs, ""},
		{"delete force of the wrong type", `{"func":"instance_delete","id":"a","force":"yes"}`, wire.CodeBadArgs, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := p.call(wire.HostCmdSubject(license), c.body)
			msg := p.mustErr(rep, c.code)
			if fmt.Sprint(rep["field"]) != c.field && !(c.field == "" && rep["field"] == nil) {
				t.Errorf("field %v, want %q (%s)", rep["field"], c.field, msg)
			}
		})
	}
	after, _ := os.ReadFile(stored)
	if string(after) != string(before) {
		t.Errorf("refused updates changed the record:\n%s\nwas\n%s", after, before)
	}
	p.mustOK(p.cmd("a", `{"func":"status"}`))
	p.mustOK(p.cmd("hostdef", `{"func":"status"}`))
}

// TestInstanceDelete_PurgeStaysInside: a purge removes a symbolic link in
// the root, never what it points to; a root replaced by a symbolic link is
// refused (root_escape) before anything is deleted.
func TestInstanceDelete_PurgeStaysInside(t *testing.T) {
	p := newProvHarness(t, "")
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "keep.txt"), "keep")
	for _, id := range []string{"linked", "swapped"} {
		p.mustOK(p.create(id, map[string]string{"GAME_PORT": fmt.Sprint(natstest.FreePort(t))}))
	}
	linked := filepath.Join(p.instancesRoot, "linked")
	if err := os.Symlink(outside, filepath.Join(linked, "out")); err != nil {
		t.Fatal(err)
	}
	p.mustOK(p.call(wire.HostCmdSubject(license), `{"func":"instance_delete","id":"linked","purge":true}`))
	if _, err := os.Lstat(linked); err == nil {
		t.Errorf("the purged root is still there")
	}

	swapped := filepath.Join(p.instancesRoot, "swapped")
	if err := os.Remove(swapped); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, swapped); err != nil {
		t.Fatal(err)
	}
	rep := p.call(wire.HostCmdSubject(license), `{"func":"instance_delete","id":"swapped","purge":true}`)
	p.mustErr(rep, wire.CodeRootEscape)
	if rep["field"] != "purge" {
		t.Errorf("field %v, want purge", rep["field"])
	}
	p.mustOK(p.cmd("swapped", `{"func":"status"}`)) // nothing was deleted
	if data, err := os.ReadFile(filepath.Join(outside, "keep.txt")); err != nil || string(data) != "keep" {
		t.Errorf("a file outside instances_root was touched: %v", err)
	}
}
