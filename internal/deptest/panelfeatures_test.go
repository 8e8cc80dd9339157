package deptest

import (
	"strings"
	"testing"
)

// panelFeatures are the panel's feature packages: each serves its own
// pages and shares the request context of a page through panel/server and
// panel/httpx, never through another feature.
var panelFeatures = []string{"panel/fleetui", "panel/console", "panel/files", "panel/social", "panel/admin", "panel/login", "panel/reachui"}

// TestPanelFeaturesDoNotImportEachOther: a feature package (or a package
// under it) imports no other feature package. Tests may: they wire a whole
// panel.
func TestPanelFeaturesDoNotImportEachOther(t *testing.T) {
	pkgs := list(t, "./panel/...")
	if len(pkgs) < len(panelFeatures) {
		t.Fatalf("go list found only %d panel packages", len(pkgs))
	}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.ImportPath, mod)
		for _, imp := range p.Imports {
			if irel, ours := strings.CutPrefix(imp, mod); ours && crossesFeatures(rel, irel) {
				t.Errorf("%s imports %s: panel features never import each other (docs/development.md: import rules)", rel, irel)
			}
		}
	}
}

// featureOf is the feature package that pkg is or lies under, or "".
func featureOf(pkg string) string {
	for _, f := range panelFeatures {
		if pkg == f || strings.HasPrefix(pkg, f+"/") {
			return f
		}
	}
	return ""
}

// crossesFeatures reports whether from importing imp joins two different
// panel features.
func crossesFeatures(from, imp string) bool {
	a, b := featureOf(from), featureOf(imp)
	return a != "" && b != "" && a != b
}

func TestCrossesFeatures(t *testing.T) {
	cases := []struct {
		from, imp string
		want      bool
	}{
		{"panel/files", "panel/console", true},
		{"panel/fleetui", "panel/social", true},
		{"panel/console/sub", "panel/login", true},
		{"panel/files", "panel/server", false},
		{"panel/console", "panel/console/sub", false},
		{"panel/app", "panel/console", false}, // the wiring imports every feature
		{"panel/fleetuix", "panel/console", false},
	}
	for _, c := range cases {
		if got := crossesFeatures(c.from, c.imp); got != c.want {
			t.Errorf("crossesFeatures(%q, %q) = %v, want %v", c.from, c.imp, got, c.want)
		}
	}
}
