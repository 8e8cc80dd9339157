package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/buildinfo"
)

// TestCommandLine pins the agent's command line without running it:
// version, help (also each command's --help), an unknown command, no
// command, a bad flag and a config that does not load.
func TestCommandLine(t *testing.T) {
	version := "corrosion-agent " + buildinfo.Get().String() + "\n"
	missing := filepath.Join(t.TempDir(), "missing.toml")
	cases := []struct {
		args           []string
		code           int
		stdout, stderr string // contained
	}{
		{nil, 2, "", "usage:\n  corrosion-agent run --config FILE"},
		{[]string{"version"}, 0, version, ""},
		{[]string{"--version"}, 0, version, ""},
		{[]string{"-version"}, 0, version, ""},
		{[]string{"-v"}, 0, version, ""},
		{[]string{"help"}, 0, "usage:\n  corrosion-agent run", ""},
		{[]string{"-h"}, 0, "usage:\n  corrosion-agent run", ""},
		{[]string{"--help"}, 0, "usage:\n  corrosion-agent run", ""},
		{[]string{"-help"}, 0, "usage:\n  corrosion-agent run", ""},
		{[]string{"run", "--help"}, 0, "", "-config string"},
		{[]string{"validate", "-h"}, 0, "", "-config string"},
		{[]string{"install", "--help"}, 0, "", "-print-unit"},
		{[]string{"service-status", "--help"}, 0, "", "-root string"},
		{[]string{"frob"}, 2, "", "corrosion-agent: unknown command \"frob\"\nusage:\n"},
		{[]string{"run", "--bogus"}, 2, "", "flag provided but not defined: -bogus"},
		{[]string{"validate", "--config", missing}, 1, "", "corrosion-agent: invalid config " + missing + ":\n"},
		{[]string{"service-status", "now"}, 2, "", "corrosion-agent service-status: unexpected argument \"now\"\n"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errOut strings.Builder
			code := run(c.args, &out, &errOut)
			if code != c.code || !strings.Contains(out.String(), c.stdout) || !strings.Contains(errOut.String(), c.stderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out.String(), errOut.String(), c.code, c.stdout, c.stderr)
			}
			if c.code != 0 && out.Len() != 0 {
				t.Fatalf("a failure wrote on stdout: %q", out.String())
			}
		})
	}
}

// TestValidate_OK: a config that loads is reported with its instances.
func TestValidate_OK(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.toml")
	if err := os.WriteFile(path, []byte("[agent]\nlicense_id = \"demo\"\nnats_url = \"nats://127.0.0.1:4222\"\nallow_root = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	if code := run([]string{"validate", "--config", path}, &out, &errOut); code != 0 || out.String() != path+": ok (0 instances)\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
