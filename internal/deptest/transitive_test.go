package deptest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/testbin"
)

// The transitive rules, checked per GOOS over what `go list -deps` says
// each root links (as Tailscale's tstest/deptest does): the direct-import
// rules of TestImportRules cannot see a ban broken two imports away.

// goosList are the systems every rule is checked for.
var goosList = []string{"linux", "windows"}

// binaries are the programs `make build` builds (every */cmd/*/main.go):
// corrosion-agent, corrosion-panel, worldsrv and ether are shipped in the
// packages (packaging/build.sh); worldbot, the world's load client, is not
// packaged but is built beside them and run by operators against their
// worlds, so it is held to the same test-code rule. tools/ holds test and
// bench programs (fakegame, benchreport, natsidle) and is not checked.
const binaryGlob = "*/cmd/*/main.go"

// depRule bans, for one root package and everything it links, the
// packages under any of banned (an import path, or a prefix ending in
// "/" for a whole tree).
type depRule struct {
	root   string
	banned []string
}

// testCode is what no binary may link: `testing` and our test helpers.
var testCode = []string{"testing", mod + "internal/natstest", mod + "internal/pgtest", mod + "internal/poll",
	mod + "internal/testbin", mod + "internal/ethertest", mod + "internal/browsertest", mod + "agent/rcon/rcontest", mod + "internal/a2s/a2stest", mod + "internal/netprobe/netprobetest",
	mod + "worldsrv/bot/worldtest", mod + "worldsrv/account/accounttest", mod + "panel/paneltest", mod + "panel/hostile"}

// componentRules are the transitive bans beyond test code.
var componentRules = []depRule{
	// The agent runs on every game host: no panel, no web pages, no world.
	{mod + "agent/cmd/corrosion-agent", []string{mod + "panel/", mod + "web/", mod + "ether/", mod + "worldsrv/"}},
	// The tick engine is pure: no database driver.
	{mod + "worldsrv/engine", []string{"github.com/jackc/pgx/"}},
	// The installer is given the agent's config check; it links no agent code.
	{mod + "installer", []string{mod + "agent/"}},
}

// knownViolations are rules broken on this branch today and being fixed
// on another (root and banned entry). A known violation that no longer
// occurs fails the test, so this list is emptied when the fix lands.
var knownViolations = []depRule{}

func TestTransitiveDeps(t *testing.T) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	mains, err := filepath.Glob(filepath.Join(root, binaryGlob))
	if err != nil || len(mains) < 4 {
		t.Fatalf("found %d binaries (%v)", len(mains), err)
	}
	rules := slices.Clone(componentRules)
	for _, m := range mains {
		rel, _ := filepath.Rel(root, filepath.Dir(m))
		rules = append(rules, depRule{mod + filepath.ToSlash(rel), testCode})
	}
	var roots []string
	for _, r := range rules {
		roots = append(roots, r.root)
	}
	for _, goos := range goosList {
		g := loadGraph(t, root, goos, roots...)
		for _, r := range rules {
			for _, ban := range r.banned {
				chains := g.violations(r.root, ban)
				known := isKnown(r.root, ban)
				switch {
				case len(chains) > 0 && known:
					t.Logf("GOOS=%s: known violation (knownViolations): %s", goos, chains[0])
				case len(chains) > 0:
					for _, c := range chains {
						t.Errorf("GOOS=%s: %s links %s, which it may not (docs/development.md: import rules):\n\t%s", goos, r.root, ban, c)
					}
				case known:
					t.Errorf("GOOS=%s: %s no longer links %s: remove it from knownViolations", goos, r.root, ban)
				}
			}
		}
	}
}

func isKnown(root, ban string) bool {
	for _, k := range knownViolations {
		if k.root == root && slices.Contains(k.banned, ban) {
			return true
		}
	}
	return false
}

// graph is the import graph `go list -deps` gives: package → its imports.
type graph map[string][]string

// loadGraph lists roots and everything they link for goos, in the module
// at dir.
func loadGraph(t *testing.T, dir, goos string, roots ...string) graph {
	t.Helper()
	g := graph{}
	env := []string{"GOOS=" + goos, "GOARCH=amd64", "GOWORK=off"}
	for _, p := range goList(t, dir, env, append([]string{"-deps", "-json=ImportPath,Imports"}, roots...)...) {
		g[p.ImportPath] = p.Imports
	}
	return g
}

// bannedBy reports whether the package path is ban, or under it when ban
// ends in "/".
func bannedBy(path, ban string) bool {
	if strings.HasSuffix(ban, "/") {
		return strings.HasPrefix(path+"/", ban)
	}
	return path == ban || strings.HasPrefix(path, ban+"/")
}

// violations returns, for each banned package root links, the shortest
// import chain to it ("a → b → c"), sorted.
func (g graph) violations(root, ban string) []string {
	prev := map[string]string{root: ""}
	queue := []string{root}
	var out []string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if bannedBy(p, ban) {
			chain := []string{p}
			for q := prev[p]; q != ""; q = prev[q] {
				chain = append(chain, q)
			}
			slices.Reverse(chain)
			out = append(out, strings.Join(chain, " → "))
			continue // what a banned package links is its own matter
		}
		for _, imp := range g[p] {
			if _, seen := prev[imp]; !seen {
				prev[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestTransitiveDeps_FailsOnAScratchModule: the checker finds a banned
// package two imports away and names the chain, on every GOOS; the same
// module without the import passes.
func TestTransitiveDeps_FailsOnAScratchModule(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module scratch\n\ngo 1.22\n")
	write("cmd/tool/main.go", "package main\n\nimport \"scratch/mid\"\n\nfunc main() { mid.Run() }\n")
	write("mid/mid.go", "package mid\n\nimport \"scratch/helper\"\n\nfunc Run() { helper.Do() }\n")
	write("helper/helper.go", "package helper\n\nimport \"testing\"\n\nfunc Do() { _ = testing.Short }\n")
	for _, goos := range goosList {
		g := loadGraph(t, dir, goos, "scratch/cmd/tool")
		got := g.violations("scratch/cmd/tool", "testing")
		want := []string{"scratch/cmd/tool → scratch/mid → scratch/helper → testing"}
		if !slices.Equal(got, want) {
			t.Fatalf("GOOS=%s: violations = %q, want %q", goos, got, want)
		}
		if got := g.violations("scratch/cmd/tool", "scratch/other/"); len(got) != 0 {
			t.Fatalf("GOOS=%s: a ban nothing links: %q", goos, got)
		}
	}
	write("helper/helper.go", "package helper\n\nfunc Do() {}\n")
	if got := loadGraph(t, dir, "linux", "scratch/cmd/tool").violations("scratch/cmd/tool", "testing"); len(got) != 0 {
		t.Fatalf("without the import: %q", got)
	}
}
