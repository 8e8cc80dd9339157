package main

import (
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/buildinfo"
)

// TestCommandLine pins the panel's dispatch exactly: version and help
// words, a noun without its one command (`user`, `license`), an unknown
// command.
func TestCommandLine(t *testing.T) {
	version := "corrosion-panel " + buildinfo.Get().String() + "\n"
	cases := []struct {
		args           []string
		code           int
		stdout, stderr string // exact
	}{
		{[]string{"version"}, exitOK, version, ""},
		{[]string{"--version"}, exitOK, version, ""},
		{[]string{"-version"}, exitOK, version, ""},
		{[]string{"help"}, exitOK, usage, ""},
		{[]string{"-h"}, exitOK, usage, ""},
		{[]string{"-help"}, exitOK, usage, ""},
		{nil, exitUsage, "", usage},
		{[]string{"-v"}, exitUsage, "", "corrosion-panel: unknown command \"-v\"\n" + usage},
		{[]string{"license"}, exitUsage, "", "corrosion-panel license: the command is `license add --id ID [--label L]`\n"},
		{[]string{"license", "remove"}, exitUsage, "", "corrosion-panel license: the command is `license add --id ID [--label L]`\n"},
		{[]string{"user", "frob"}, exitUsage, "", "corrosion-panel user: the command is `user add --name N --role admin|operator|viewer [--licenses a,b] [--password-stdin]`\n"},
		{[]string{"migrate", "now"}, exitUsage, "", "corrosion-panel migrate: usage: unexpected argument \"now\"\n"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runCmd(t, nil, "", c.args...)
			if r.code != c.code || r.stdout != c.stdout || r.stderr != c.stderr {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q, %q", r.code, r.stdout, r.stderr, c.code, c.stdout, c.stderr)
			}
		})
	}
}
