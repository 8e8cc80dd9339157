package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/buildinfo"
)

// program is a test program of two commands, "serve" and "check"; each
// reports the arguments it got on stdout and returns its exit code.
func program(stdout, stderr io.Writer) Program {
	cmd := func(name string, code int) Run {
		return func(_ context.Context, args []string) int {
			fmt.Fprintf(stdout, "%s %q", name, args)
			return code
		}
	}
	return Program{
		Name:     "prog",
		Usage:    func(w io.Writer) { fmt.Fprint(w, "usage: prog serve|check\n") },
		Commands: []Command{{Name: "serve", Run: cmd("serve", ExitOK)}, {Name: "check", Run: cmd("check", ExitFail)}},
		Stdout:   stdout,
		Stderr:   stderr,
	}
}

func TestProgram_Run(t *testing.T) {
	version := "prog " + buildinfo.Get().String() + "\n"
	usage := "usage: prog serve|check\n"
	cases := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{nil, ExitUsage, "", usage},
		{[]string{"version"}, ExitOK, version, ""},
		{[]string{"--version"}, ExitOK, version, ""},
		{[]string{"-version", "extra"}, ExitOK, version, ""},
		{[]string{"help"}, ExitOK, usage, ""},
		{[]string{"-h"}, ExitOK, usage, ""},
		{[]string{"--help"}, ExitOK, usage, ""},
		{[]string{"-help"}, ExitOK, usage, ""},
		{[]string{"serve", "--listen", "x"}, ExitOK, `serve ["--listen" "x"]`, ""},
		{[]string{"check"}, ExitFail, `check []`, ""},
		{[]string{"frob", "serve"}, ExitUsage, "", "prog: unknown command \"frob\"\n" + usage},
		{[]string{"-v"}, ExitUsage, "", "prog: unknown command \"-v\"\n" + usage},
		{[]string{"--listen", "x"}, ExitUsage, "", "prog: unknown command \"--listen\"\n" + usage},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errOut strings.Builder
			code := program(&out, &errOut).Run(context.Background(), c.args)
			if code != c.code || out.String() != c.stdout || errOut.String() != c.stderr {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out.String(), errOut.String(), c.code, c.stdout, c.stderr)
			}
		})
	}
}

// TestProgram_Default: a program with a Default runs it for every first
// argument that is not a command or a version word, help words and no
// arguments included (its flag set handles --help).
func TestProgram_Default(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stdout string
	}{
		{nil, ExitOK, `default []`},
		{[]string{"--help"}, ExitOK, `default ["--help"]`},
		{[]string{"help"}, ExitOK, `default ["help"]`},
		{[]string{"--bots", "3"}, ExitOK, `default ["--bots" "3"]`},
		{[]string{"check", "-x"}, ExitFail, `check ["-x"]`},
		{[]string{"--version"}, ExitOK, "prog " + buildinfo.Get().String() + "\n"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errOut strings.Builder
			p := program(&out, &errOut)
			p.Default = func(_ context.Context, args []string) int {
				fmt.Fprintf(&out, "default %q", args)
				return ExitOK
			}
			if code := p.Run(context.Background(), c.args); code != c.code || out.String() != c.stdout || errOut.Len() != 0 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q", code, out.String(), errOut.String(), c.code, c.stdout)
			}
		})
	}
}

// TestProgram_ContextReachesTheCommand: the command runs under the
// context Run is given.
func TestProgram_ContextReachesTheCommand(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "root")
	p := Program{Name: "prog", Stdout: io.Discard, Stderr: io.Discard, Commands: []Command{{Name: "run", Run: func(ctx context.Context, _ []string) int {
		if ctx.Value(key{}) != "root" {
			return ExitFail
		}
		return ExitOK
	}}}}
	if code := p.Run(ctx, []string{"run"}); code != ExitOK {
		t.Fatalf("the command did not get Run's context: exit %d", code)
	}
}

func TestExit(t *testing.T) {
	cause := errors.New("connection refused")
	cases := []struct {
		name string
		err  error
		code int
		out  string
	}{
		{"nil", nil, ExitOK, ""},
		{"help", flag.ErrHelp, ExitOK, ""},
		{"wrapped help", fmt.Errorf("parse: %w", flag.ErrHelp), ExitOK, ""},
		{"failure", fmt.Errorf("dial: %w", cause), ExitFail, "prog run: dial: connection refused\n"},
		{"bad usage", BadUsage(errors.New("--node-id must be 1 to 255")), ExitUsage, "prog run: --node-id must be 1 to 255\n"},
		{"wrapped usage", fmt.Errorf("%w: unexpected argument \"x\"", ErrUsage), ExitUsage, "prog run: usage: unexpected argument \"x\"\n"},
		{"usage wrapped again", fmt.Errorf("load: %w", BadUsage(cause)), ExitUsage, "prog run: load: connection refused\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w strings.Builder
			if code := Exit(&w, "prog run", c.err); code != c.code || w.String() != c.out {
				t.Fatalf("exit %d, wrote %q; want %d, %q", code, w.String(), c.code, c.out)
			}
		})
	}
}

// TestBadUsage: the mark keeps the message and the cause.
func TestBadUsage(t *testing.T) {
	cause := errors.New("no such file")
	err := BadUsage(fmt.Errorf("--config: %w", cause))
	if err.Error() != "--config: no such file" || !errors.Is(err, cause) || !errors.Is(err, ErrUsage) {
		t.Fatalf("BadUsage: %q, is cause %v, is ErrUsage %v", err, errors.Is(err, cause), errors.Is(err, ErrUsage))
	}
	if BadUsage(nil) != nil {
		t.Fatal("BadUsage(nil) is not nil")
	}
}

func TestConfigExit(t *testing.T) {
	usage := func(w io.Writer) { fmt.Fprint(w, "usage: prog run [flags]\n") }
	var out, errOut strings.Builder
	if code := ConfigExit(&out, &errOut, "prog run", fmt.Errorf("load: %w", flag.ErrHelp), usage); code != ExitOK || out.String() != "usage: prog run [flags]\n" || errOut.Len() != 0 {
		t.Fatalf("--help: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := ConfigExit(&out, &errOut, "prog run", errors.New("--node-id must be 1 to 255"), usage); code != ExitUsage || out.Len() != 0 || errOut.String() != "prog run: --node-id must be 1 to 255\n" {
		t.Fatalf("a bad flag: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

func TestFlagExit(t *testing.T) {
	if FlagExit(flag.ErrHelp) != ExitOK || FlagExit(errors.New("flag provided but not defined: -x")) != ExitUsage {
		t.Fatal("FlagExit: --help is not ExitOK or a bad flag is not ExitUsage")
	}
}
