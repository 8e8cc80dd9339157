package installer

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/testbin"
)

// TestSystemdUnit_PassesSystemdAnalyzeVerify: systemd itself accepts the
// unit, without a single warning (verify exits 0 on unknown keys and bad
// values, but prints them). ExecStart points at a real agent binary, and
// at a path with a space to check the quoting.
func TestSystemdUnit_PassesSystemdAnalyzeVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Fatal("systemd-analyze is not installed (apt-get install systemd): it checks the unit")
	}
	bin := testbin.Build(t, "./agent/cmd/corrosion-agent")
	dir := filepath.Join(t.TempDir(), "with space")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	spaced := filepath.Join(dir, "corrosion-agent")
	if err := os.Symlink(bin, spaced); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{bin, spaced} {
		unit := filepath.Join(t.TempDir(), ServiceName+".service")
		text := SystemdUnit(UnitOptions{Binary: b, ConfigPath: filepath.Join(dir, "agent.toml")})
		if err := os.WriteFile(unit, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(analyze, "verify", unit).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("systemd-analyze verify (binary %q): %v\n%s\nunit:\n%s", b, err, out, text)
		}
	}
}
