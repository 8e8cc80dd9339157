package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/testbin"
)

// run runs the fake with args and returns its output and exit code.
func run(t *testing.T, stdin string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(testbin.Build(t, "./tools/fakesteamcmd"), args...)
	cmd.Env = append(append(testbin.Env(), "FAKESTEAMCMD_HOME="+t.TempDir()), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// The `+command arg…` sequence as steamcmd parses it: unknown commands
// named, login before the install dir warned about, commands needing a
// login refused, the prompt without +quit, exit codes.
func TestFakeSteamCMD_CommandLine(t *testing.T) {
	for name, tc := range map[string]struct {
		stdin string
		args  []string
		want  []string
		exit  int
	}{
		"unknown command":    {args: []string{"+frobnicate", "1", "+quit"}, want: []string{`Unknown command "frobnicate"`, "Unloading Steam API...OK"}},
		"banner":             {args: []string{"+quit"}, want: []string{"Redirecting stderr to '", "Loading Steam API...OK"}},
		"dir after login":    {args: []string{"+login", "anonymous", "+force_install_dir", "/tmp/x", "+quit"}, want: []string{"Please use force_install_dir before logon!"}},
		"not logged on":      {args: []string{"+app_update", "258550", "+quit"}, want: []string{"ERROR! Not logged on."}, exit: 8},
		"user login refused": {args: []string{"+login", "someone", "pw", "+quit"}, want: []string{"FAILED (Invalid Password)"}, exit: 5},
		"no +quit: prompt":   {stdin: "frob\nquit\n", want: []string{"Steam>", `Unknown command "frob"`}},
		"app_update usage":   {args: []string{"+login", "anonymous", "+app_update", "+quit"}, want: []string{"Usage: app_update"}, exit: 8},
	} {
		out, exit := run(t, tc.stdin, nil, tc.args...)
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in:\n%s", name, w, out)
			}
		}
		if exit != tc.exit {
			t.Errorf("%s: exit %d, want %d", name, exit, tc.exit)
		}
	}
}

// app_update installs the depot's newest build and writes a real-format
// manifest; the first-run self-update exits 7 once.
func TestFakeSteamCMD_InstallsFromDepot(t *testing.T) {
	depot, dir := t.TempDir(), t.TempDir()
	for _, b := range []string{"9", "10"} {
		p := filepath.Join(depot, "42", "public", b, "bin", "server")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("build "+b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, exit := run(t, "", []string{"FAKESTEAMCMD_DEPOT=" + depot}, "+force_install_dir", dir, "+login", "anonymous", "+app_update", "42", "validate", "+quit")
	if exit != 0 || !strings.Contains(out, "Success! App '42' fully installed.") {
		t.Fatalf("exit %d:\n%s", exit, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "bin", "server")); string(b) != "build 10" {
		t.Errorf("installed %q", b)
	}
	acf, err := os.ReadFile(filepath.Join(dir, "steamapps", "appmanifest_42.acf"))
	if err != nil || !strings.HasPrefix(string(acf), "\"AppState\"\n{\n\t\"appid\"\t\t\"42\"\n") || !strings.Contains(string(acf), "\t\"buildid\"\t\t\"10\"\n") {
		t.Errorf("manifest %v:\n%s", err, acf)
	}
	out, exit = run(t, "", []string{"FAKESTEAMCMD_MODE=self_update", "FAKESTEAMCMD_FAIL_RUNS=1"}, "+quit")
	if exit != 7 || !strings.Contains(out, "Update complete, launching Steamcmd...") {
		t.Errorf("self-update: exit %d:\n%s", exit, out)
	}
}
