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
