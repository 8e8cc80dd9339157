package pkgtest

import (
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goreleaser/nfpm/v2"

	"github.com/corrosion/corrosion/internal/testbin"
)

// unitDir is where the packages install their units (Debian 12 and RHEL
// both read it).
const unitDir = "/usr/lib/systemd/system"

// stagedAgentUnit is the agent unit's source in agent.yaml: packaging/build.sh
// renders it there.
const stagedAgentUnit = "dist/stage/corrosion-agent.service"

// verifyTimeout bounds one systemd-analyze run.
const verifyTimeout = 30 * time.Second

// shipped is what the nfpm configs put into the packages.
type shipped struct {
	files map[string]string // path in the system → source file (absolute)
	units map[string]string // unit file name → source file (absolute)
	bins  []string          // the executables' paths in the system
}

// readShipped parses every packaging/nfpm/*.yaml with nfpm's own parser.
func readShipped(t *testing.T, root string) shipped {
	t.Helper()
	configs, err := filepath.Glob(filepath.Join(root, "packaging/nfpm/*.yaml"))
	if err != nil || len(configs) == 0 {
		t.Fatalf("no nfpm configs in %s/packaging/nfpm (%v)", root, err)
	}
	env := map[string]string{"ARCH": "amd64", "VERSION": "0.0.0", "BIN": "bin/linux_amd64"}
	s := shipped{files: map[string]string{}, units: map[string]string{}}
	for _, c := range configs {
		cfg, err := nfpm.ParseFileWithEnvMapping(c, func(k string) string { return env[k] })
		if err != nil {
			t.Fatalf("parse %s: %v", c, err)
		}
		for _, f := range cfg.Contents {
			s.files[f.Destination] = filepath.Join(root, f.Source)
			switch {
			case path.Dir(f.Destination) == unitDir:
				s.units[path.Base(f.Destination)] = filepath.Join(root, f.Source)
			case path.Dir(f.Destination) == "/usr/bin":
				s.bins = append(s.bins, f.Destination)
			}
		}
	}
	return s
}

// agentUnit writes the agent's unit as packaging/build.sh renders it for
// the package (`corrosion-agent install --print-unit --binary
// /usr/bin/corrosion-agent`) and returns its path.
func agentUnit(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(testbin.Build(t, "./agent/cmd/corrosion-agent"),
		"install", "--print-unit", "--binary", "/usr/bin/corrosion-agent")
	cmd.Env = testbin.Env()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("corrosion-agent install --print-unit: %v", err)
	}
	p := filepath.Join(t.TempDir(), "corrosion-agent.service")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// newSystem builds a root directory for systemd-analyze: the machine's own
// units (the targets ours refer to), ours as shipped, and an executable at
// every path the packages install a binary to.
func newSystem(t *testing.T, s shipped) string {
	t.Helper()
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Fatalf("systemd-analyze is required (Debian: apt install systemd): %v", err)
	}
	sys := t.TempDir()
	dst := filepath.Join(sys, unitDir)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", "/usr/lib/systemd/system", dst).CombinedOutput(); err != nil {
		t.Fatalf("copy the machine's systemd units: %v\n%s", err, out)
	}
	for name, src := range s.units {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatalf("unit %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range s.bins {
		p := filepath.Join(sys, b)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return sys
}

// verify runs systemd-analyze verify on unit (a template is verified as its
// instance 10) under sys. Any output is a problem: systemd-analyze exits 0
// on unknown keys and only prints them.
func verify(t *testing.T, sys, unit string) (string, error) {
	t.Helper()
	if strings.HasSuffix(unit, "@.service") {
		unit = strings.TrimSuffix(unit, "@.service") + "@10.service"
	}
	ctx, cancel := context.WithTimeout(context.Background(), verifyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "systemd-analyze", "verify", "--root="+sys, unit)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func TestShippedUnits_Verify(t *testing.T) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	s := readShipped(t, root)
	if src, ok := s.units["corrosion-agent.service"]; !ok || src != filepath.Join(root, stagedAgentUnit) {
		t.Fatalf("agent.yaml ships the agent unit from %q, want %s", src, stagedAgentUnit)
	}
	s.units["corrosion-agent.service"] = agentUnit(t)
	names := slices.Sorted(maps.Keys(s.units))
	want := []string{"corrosion-agent.service", "corrosion-panel.service", "corrosion-world@.service"}
	if !slices.Equal(names, want) {
		t.Fatalf("shipped units %v, want %v", names, want)
	}
	sys := newSystem(t, s)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			if out, err := verify(t, sys, name); err != nil || out != "" {
				t.Errorf("systemd-analyze verify %s: %v\n%s", name, err, out)
			}
		})
	}
}

// TestVerify_FindsProblems shows the check above fails on a broken unit:
// a misspelt key (which systemd-analyze only prints) and a binary no
// package installs.
func TestVerify_FindsProblems(t *testing.T) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	s := readShipped(t, root)
	good, err := os.ReadFile(filepath.Join(root, "packaging/systemd/corrosion-panel.service"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, from, to string }{
		{"misspelt key", "\nRestart=always", "\nRestrat=always"},
		{"binary not shipped", "ExecStart=/usr/bin/corrosion-panel", "ExecStart=/usr/sbin/corrosion-panel"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := strings.Replace(string(good), c.from, c.to, 1)
			if bad == string(good) {
				t.Fatalf("%q is not in corrosion-panel.service", c.from)
			}
			p := filepath.Join(t.TempDir(), "corrosion-panel.service")
			if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
				t.Fatal(err)
			}
			s.units = map[string]string{"corrosion-panel.service": p}
			if out, err := verify(t, newSystem(t, s), "corrosion-panel.service"); err == nil && out == "" {
				t.Errorf("systemd-analyze verify passed a unit with a %s", c.name)
			}
		})
	}
}

// TestShippedUnits_Settings pins what each unit must say beyond being
// valid: who it runs as, what it runs, where its settings come from, and
// that stopping the agent leaves the game servers running.
func TestShippedUnits_Settings(t *testing.T) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	s := readShipped(t, root)
	s.units["corrosion-agent.service"] = agentUnit(t)
	want := map[string][]string{
		"corrosion-agent.service": {"User=corrosion", "KillMode=process", "Restart=always",
			"After=network-online.target", "WantedBy=multi-user.target",
			"ExecStart=/usr/bin/corrosion-agent run --config /etc/corrosion/agent.toml"},
		"corrosion-panel.service": {"User=corrosion-panel", "EnvironmentFile=/etc/corrosion/panel.env",
			"ExecStart=/usr/bin/corrosion-panel serve", "WantedBy=multi-user.target"},
		"corrosion-world@.service": {"User=corrosion-world", "EnvironmentFile=/etc/corrosion/world.env",
			"EnvironmentFile=-/etc/corrosion/world-%i.env", "ExecStart=/usr/bin/worldsrv --node-id %i $WORLD_ARGS",
			"WantedBy=multi-user.target"},
	}
	for name, lines := range want {
		b, err := os.ReadFile(s.units[name])
		if err != nil {
			t.Fatalf("unit %s: %v", name, err)
		}
		have := strings.Split(string(b), "\n")
		for _, l := range lines {
			if !slices.Contains(have, l) {
				t.Errorf("%s has no line %q", name, l)
			}
		}
	}
}

// TestAgentExample_Validates runs the real agent's validate on the example
// configuration agent.yaml ships (CI validates the installed copy too).
func TestAgentExample_Validates(t *testing.T) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	const example = "/usr/share/doc/corrosion-agent/examples/agent.toml"
	src, ok := readShipped(t, root).files[example]
	if !ok {
		t.Fatalf("agent.yaml ships no %s", example)
	}
	cmd := exec.Command(testbin.Build(t, "./agent/cmd/corrosion-agent"), "validate", "--config", src)
	cmd.Env = testbin.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("corrosion-agent validate --config %s: %v\n%s", src, err, out)
	}
}
