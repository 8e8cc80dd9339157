package deptest

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/testbin"
)

const mod = "github.com/corrosion/corrosion/"

type pkg struct {
	ImportPath string
	Name       string
	Deps       []string
	Imports    []string
}

// list runs `go list -deps -json` (or without -deps) over patterns.
func list(t *testing.T, deps bool, patterns ...string) []pkg {
	t.Helper()
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"list", "-json"}
	if deps {
		args = append(args, "-deps")
	}
	cmd := exec.Command("go", append(args, patterns...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
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

// testOnly are packages that must never reach a shipped binary.
var testOnly = []string{"testing", mod + "internal/natstest", mod + "internal/pgtest", mod + "internal/poll",
	mod + "internal/testbin", mod + "agent/rcon/rcontest"}

func TestShippedBinariesHaveNoTestCode(t *testing.T) {
	for _, p := range list(t, false, "./...") {
		if p.Name != "main" || !strings.Contains(p.ImportPath, "/cmd/") {
			continue
		}
		deps := list(t, true, p.ImportPath)
		for _, d := range deps {
			for _, bad := range testOnly {
				if d.ImportPath == bad {
					t.Errorf("%s links %s", p.ImportPath, bad)
				}
			}
		}
	}
}

// TestImportRules: agent, ether and worldsrv never import panel or web;
// ether and worldsrv do not import the agent; internal holds no domain
// logic, so it imports none of the components.
func TestImportRules(t *testing.T) {
	rules := []struct {
		from   string
		banned []string
	}{
		{"agent/", []string{"panel/", "web/", "ether/", "worldsrv/"}},
		{"ether/", []string{"panel/", "web/", "agent/", "worldsrv/"}},
		{"worldsrv/", []string{"panel/", "web/", "agent/"}},
		{"internal/", []string{"agent/", "ether/", "worldsrv/", "panel/", "web/"}},
	}
	pkgs := list(t, false, "./...")
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.ImportPath, mod)
		for _, r := range rules {
			if !strings.HasPrefix(rel+"/", r.from) {
				continue
			}
			for _, imp := range p.Imports {
				irel, ours := strings.CutPrefix(imp, mod)
				if !ours {
					continue
				}
				for _, b := range r.banned {
					if strings.HasPrefix(irel+"/", b) && !allowed(rel, irel) {
						t.Errorf("%s imports %s (DESIGN.md section 2)", rel, irel)
					}
				}
			}
		}
	}
}

// allowed lists the sanctioned cross-component imports: a protocol belongs
// to its owner and is imported by its peers (worldsrv uses ether's frame
// codec; the agent's test helpers may build binaries).
func allowed(from, imp string) bool {
	switch {
	case strings.HasPrefix(from, "worldsrv") && imp == "ether/proto":
		return true
	case strings.HasPrefix(from, "internal/deptest"):
		return true
	}
	return false
}
