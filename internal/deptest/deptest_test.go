package deptest

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/testbin"
)

const mod = "github.com/corrosion/corrosion/"

type pkg struct {
	ImportPath string
	Imports    []string
}

// list runs `go list -json` over patterns in the module's root, for
// this system.
func list(t *testing.T, patterns ...string) []pkg {
	t.Helper()
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return goList(t, root, nil, append([]string{"-json=ImportPath,Imports"}, patterns...)...)
}

// goList runs `go list args...` in dir with env added to the environment
// and decodes its JSON stream.
func goList(t *testing.T, dir string, env []string, args ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list %s (%s): %v\n%s", strings.Join(args, " "), strings.Join(env, " "), err, stderr)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestImportRules: agent, ether and worldsrv never import panel or web
// (worldsrv only the world's browser client, web/world); ether and worldsrv
// do not import the agent (worldsrv only its supervisor, agent/supervise,
// and the types of its API, agent/config and agent/wire); the installer
// does not import the agent (it is given the agent's config check);
// nothing but panel imports panel; the world client never pulls in panel
// code; internal holds no domain logic, so it imports none of the
// components.
func TestImportRules(t *testing.T) {
	pkgs := list(t, "./...")
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.ImportPath, mod)
		for _, imp := range p.Imports {
			if irel, ours := strings.CutPrefix(imp, mod); ours && violates(rel, irel) {
				t.Errorf("%s imports %s (docs/development.md: import rules)", rel, irel)
			}
		}
	}
}

// rules bans imports by folder prefix: a package under from may not import
// a package under any of banned, unless allowed says otherwise.
var rules = []struct {
	from   string
	banned []string
}{
	{"agent/", []string{"panel/", "web/", "ether/", "worldsrv/"}},
	{"ether/", []string{"panel/", "web/", "agent/", "worldsrv/"}},
	{"worldsrv/", []string{"panel/", "web/", "agent/", "ether/"}},
	{"web/world/", []string{"panel/", "web/ui/", "agent/", "ether/"}},
	{"web/", []string{"panel/"}},
	{"internal/", []string{"agent/", "ether/", "worldsrv/", "panel/", "web/"}},
	{"installer/", []string{"panel/", "web/", "ether/", "worldsrv/", "agent/"}},
}

// violates reports whether the package at from (relative to the module)
// may not import imp.
func violates(from, imp string) bool {
	if strings.HasPrefix(imp+"/", "panel/") && !strings.HasPrefix(from+"/", "panel/") {
		return true // nothing but panel imports panel
	}
	for _, r := range rules {
		if !strings.HasPrefix(from+"/", r.from) {
			continue
		}
		for _, b := range r.banned {
			if strings.HasPrefix(imp+"/", b) && !allowed(from, imp) {
				return true
			}
		}
	}
	return false
}

// allowed lists the sanctioned cross-component imports: a protocol belongs
// to its owner and is imported by its peers (worldsrv uses ether's frame
// codec), there is one process supervisor (worldsrv supervises its sidecar
// with agent/supervise, whose API is written in agent/config's Instance
// and agent/wire's states and console lines), and worldsrv serves its browser client from
// web/world.
func allowed(from, imp string) bool {
	if strings.HasPrefix(from+"/", "internal/deptest/") {
		return true
	}
	if strings.HasPrefix(from+"/", "worldsrv/") {
		switch {
		case imp == "ether/proto", imp == "agent/supervise", imp == "agent/config", imp == "agent/wire",
			strings.HasPrefix(imp+"/", "web/world/"):
			return true
		}
	}
	return false
}

func TestViolates(t *testing.T) {
	cases := []struct {
		from, imp string
		want      bool
	}{
		{"worldsrv/etherlink", "ether/proto", false},
		{"worldsrv/cmd/worldsrv", "agent/supervise", false},
		{"worldsrv/cmd/worldsrv", "web/world", false},
		{"worldsrv/cmd/worldsrv", "web/ui", true},
		{"worldsrv/sidecar", "agent/wire", false},
		{"worldsrv/sidecar", "agent/config", false},
		{"worldsrv/sidecar", "agent/files", true},
		{"worldsrv/cmd/worldsrv", "agent", true},
		{"worldsrv/engine", "ether/session", true}, // only the frame codec
		{"installer", "panel/store", true},
		{"installer", "web/ui", true},
		{"installer", "ether/proto", true},
		{"installer", "worldsrv/engine", true},
		{"installer", "agent/config", true},
		{"installer", "agent", true},
		{"agent/cmd/corrosion-agent", "installer", false},
		{"worldsrv/engine", "panel/store", true},
		{"web/world", "web/ui", true},
		{"web/world", "panel/store", true},
		{"web/ui", "panel/store", true},
		{"web/ui", "web/world", false},
		{"agent", "ether/proto", true},
		{"agent/supervise", "worldsrv/proto", true},
		{"ether/link", "agent/supervise", true},
		{"ether", "web/world", true},
		{"internal/natstest", "agent/wire", true},
		{"panel/store", "agent/wire", false},
		{"panel", "ether/proto", false},
	}
	for _, c := range cases {
		if got := violates(c.from, c.imp); got != c.want {
			t.Errorf("violates(%q, %q) = %v, want %v", c.from, c.imp, got, c.want)
		}
	}
}
