package scripts

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRender_ShellParses: every rendered script is a shell script sh
// accepts (sh -n), for every package and hook.
func TestRender_ShellParses(t *testing.T) {
	dir := t.TempDir()
	if err := Render(dir); err != nil {
		t.Fatal(err)
	}
	for _, pkg := range PackageNames() {
		for _, hook := range Hooks {
			f := filepath.Join(dir, FileName(pkg, hook))
			if out, err := exec.Command("sh", "-n", f).CombinedOutput(); err != nil {
				t.Errorf("sh -n %s: %v\n%s", FileName(pkg, hook), err, out)
			}
		}
	}
}

// TestScript_Unknown: an unknown package or hook is an error that names
// the choices, never an empty script.
func TestScript_Unknown(t *testing.T) {
	for _, c := range []struct{ pkg, hook, want string }{
		{"agnet", "preinstall", `no package "agnet" (want one of [agent panel world])`},
		{"agent", "postinst", `no hook "postinst"`},
	} {
		b, err := Script(c.pkg, c.hook)
		if err == nil || !strings.Contains(err.Error(), c.want) || b != nil {
			t.Errorf("Script(%q, %q) = %d bytes, %v; want an error containing %q", c.pkg, c.hook, len(b), err, c.want)
		}
	}
}
