package agent_test

import (
	"strings"
	"testing"

	"github.com/corrosion/corrosion/agent/template"
	"github.com/corrosion/corrosion/agent/wire"
)

// TestTemplates_RefusedWhenProvisioningOff: the default agent refuses the
// provisioning funcs with a code that says why and how to turn them on.
func TestTemplates_RefusedWhenProvisioningOff(t *testing.T) {
	h := newHarness(t, 60, "")
	msg := h.mustErr(h.call(wire.HostCmdSubject(license), `{"func":"templates"}`), wire.CodeProvisioningDisabled)
	if !strings.Contains(msg, "provisioning = true") {
		t.Fatalf("message %q does not say how to turn provisioning on", msg)
	}
}

// TestTemplates_ListsBuiltins: with provisioning on, templates lists every
// built-in with its variables and ports, and never a secret's default.
func TestTemplates_ListsBuiltins(t *testing.T) {
	h := prepareHarness(t, 60, "", "provisioning = true\n")
	h.startAgent()
	rep := h.mustOK(h.call(wire.HostCmdSubject(license), `{"func":"templates"}`))
	builtins, err := template.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := rep["templates"].([]any)
	if len(got) != len(builtins) {
		t.Fatalf("%d templates, want the %d built-ins: %v", len(got), len(builtins), rep)
	}
	for i, b := range builtins {
		g := got[i].(map[string]any)
		if g["id"] != b.ID || g["name"] != b.Name || g["game"] != b.Game {
			t.Errorf("template %d = %v %v %v, want %s %s %s", i, g["id"], g["name"], g["game"], b.ID, b.Name, b.Game)
		}
		vars, _ := g["variables"].([]any)
		ports, _ := g["ports"].([]any)
		if len(vars) != len(b.Variables) || len(ports) != len(b.Ports) {
			t.Errorf("%s: %d variables, %d ports; want %d, %d", b.ID, len(vars), len(ports), len(b.Variables), len(b.Ports))
			continue
		}
		for j, v := range b.Variables {
			gv := vars[j].(map[string]any)
			if gv["key"] != v.Key || gv["type"] != string(v.Type) || gv["user_visible"] != v.Visible() {
				t.Errorf("%s variable %d = %v, want %s (%s)", b.ID, j, gv, v.Key, v.Type)
			}
			if _, has := gv["default"]; v.Type == template.TypeSecret && has {
				t.Errorf("%s: secret %s's default is sent: %v", b.ID, v.Key, gv)
			}
		}
	}
}
