package main

import (
	"context"
	"strings"
	"testing"
)

// TestCommandLine pins ether's dispatch in-process: the usage (with the
// flags) for help and for a bad command line, and a bad flag of each
// command exiting 2 with one line naming the command.
func TestCommandLine(t *testing.T) {
	var full strings.Builder
	printUsage(&full)
	cases := []struct {
		args           []string
		code           int
		stdout, stderr string // exact; "" for stderr means empty
	}{
		{[]string{"help"}, 0, full.String(), ""},
		{[]string{"-help"}, 0, full.String(), ""},
		{[]string{"migrate", "--help"}, 0, full.String(), ""},
		{nil, 2, "", full.String()},
		{[]string{"dance"}, 2, "", "ether: unknown command \"dance\"\n" + full.String()},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errOut strings.Builder
			code := program(func(string) string { return "" }, strings.NewReader(""), &out, &errOut).Run(context.Background(), c.args)
			if code != c.code || out.String() != c.stdout || errOut.String() != c.stderr {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out.String(), errOut.String(), c.code, c.stdout, c.stderr)
			}
		})
	}
	for _, name := range []string{"run", "migrate"} {
		var out, errOut strings.Builder
		code := program(func(string) string { return "" }, strings.NewReader(""), &out, &errOut).Run(context.Background(), []string{name, "--node-id", "0"})
		if code != 2 || !strings.HasPrefix(errOut.String(), "ether "+name+": ") || strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("%s --node-id 0: exit %d, stderr %q", name, code, errOut.String())
		}
	}
}
