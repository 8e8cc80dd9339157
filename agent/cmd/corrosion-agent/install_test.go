//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/corrosion/corrosion/internal/testbin"
)

// TestInstall_NotRoot_RefusedClearly: install and uninstall on the real
// system need root, and say so; a dry run does not. As root the test runs
// the binary as nobody.
func TestInstall_NotRoot_RefusedClearly(t *testing.T) {
	bin := testbin.Build(t, "./agent/cmd/corrosion-agent")
	dir := t.TempDir()
	exe := filepath.Join(dir, "corrosion-agent")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	// Let nobody reach it: t.TempDir and the test's directory above it
	// are 0700. (Only those two: never os.TempDir itself.)
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		args    []string
		code    int
		contain string
	}{
		{[]string{"install"}, 1, "corrosion-agent install: install needs root: run it with sudo"},
		{[]string{"uninstall"}, 1, "corrosion-agent uninstall: uninstall needs root: run it with sudo"},
		{[]string{"install", "--dry-run"}, 0, "would create user corrosion"},
		{[]string{"install", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"install", "--config", "relative.toml", "--dry-run"}, 1, `config path "relative.toml" is not absolute`},
		{[]string{"uninstall", "extra"}, 2, `unexpected argument "extra"`},
	}
	for _, c := range cases {
		cmd := exec.Command(exe, c.args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != c.code || !strings.Contains(out.String(), c.contain) {
			t.Errorf("%v: exit %d (%v), want %d with %q:\n%s", c.args, code, err, c.code, c.contain, out.String())
		}
	}
}

// TestInstall_PrintUnit prints the unit for the given paths.
func TestInstall_PrintUnit(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"install", "--print-unit", "--binary", "/opt/agent", "--config", "/etc/x.toml"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "\nExecStart=/opt/agent run --config /etc/x.toml\n") ||
		!strings.Contains(out.String(), "\nKillMode=process\n") {
		t.Errorf("unit:\n%s", out.String())
	}
}
