package flagval

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

var errBad = errors.New("bad config")

// TestLayer: flags win over the environment, which wins over the
// defaults; a bad variable is named with its value; help and a stray
// argument are told apart.
func TestLayer(t *testing.T) {
	load := func(args []string, env map[string]string) (int, string, error) {
		n, s := 1, "default"
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Func("n", "", Int(&n))
		fs.Func("s", "", String(&s))
		err := Layer([]EnvVar{{"T_N", Int(&n)}, {"T_S", String(&s)}}, func(k string) string { return env[k] }, fs, args, errBad)
		return n, s, err
	}
	if n, s, err := load(nil, nil); err != nil || n != 1 || s != "default" {
		t.Errorf("defaults: %d %q %v", n, s, err)
	}
	if n, s, err := load([]string{"-n", "3"}, map[string]string{"T_N": "2", "T_S": "env"}); err != nil || n != 3 || s != "env" {
		t.Errorf("flag over env: %d %q %v", n, s, err)
	}
	if _, _, err := load(nil, map[string]string{"T_N": "two"}); !errors.Is(err, errBad) || err.Error() != `bad config: T_N="two": not a number` {
		t.Errorf("bad variable: %v", err)
	}
	if _, _, err := load([]string{"-h"}, nil); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("help: %v", err)
	}
	if _, _, err := load([]string{"-n", "x"}, nil); !errors.Is(err, errBad) {
		t.Errorf("bad flag: %v", err)
	}
	if _, _, err := load([]string{"extra"}, nil); !errors.Is(err, errBad) || !strings.Contains(err.Error(), `unexpected argument "extra"`) {
		t.Errorf("stray argument: %v", err)
	}
}

// FlagSet prints a flag's variable and its default, but no empty default
// and none the usage already gives; a Bool var is a flag without a value.
func TestFlagSet_Usage(t *testing.T) {
	on, s, empty := false, "x", ""
	vars := []Var{
		{Flag: "s", Env: "T_S", Usage: "a string", Set: String(&s), Get: func() string { return s }},
		{Flag: "e", Env: "T_E", Usage: "an empty one", Set: String(&empty), Get: func() string { return empty }},
		{Flag: "d", Usage: "said (default: from s)", Set: String(&empty), Get: func() string { return "from s" }},
		{Flag: "on", Usage: "a switch", Set: Bool(&on), Get: func() string { return "false" }, Bool: true},
	}
	var out strings.Builder
	FlagSet("t", vars, &out).PrintDefaults()
	for _, want := range []string{"a string [T_S] (default x)", "an empty one [T_E]\n", "said (default: from s)\n", "a switch (default false)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, out.String())
		}
	}
	if err := Load("t", vars, func(string) string { return "" }, []string{"--on"}, errBad); err != nil || !on {
		t.Fatalf("--on without a value: on=%v, %v", on, err)
	}
}
