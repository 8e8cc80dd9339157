package main

import (
	"strings"
	"testing"
)

// TestWorldbot_Version: worldbot answers version like every binary
// (README: "Every binary prints its version … with --version"); before,
// it took the word for a bad flag or argument and exited 2.
func TestWorldbot_Version(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		code, out, errOut := worldbot(t, nil, nil, arg)
		if code != 0 || !strings.HasPrefix(string(out), "worldbot ") || errOut != "" {
			t.Errorf("worldbot %s: exit %d, stdout %q, stderr %q", arg, code, out, errOut)
		}
	}
}

// TestWorldbot_Help: --help lists the flags on stderr and exits 0; the
// word help is no flag (exit 2).
func TestWorldbot_Help(t *testing.T) {
	code, _, errOut := worldbot(t, nil, nil, "--help")
	if code != 0 || !strings.Contains(errOut, "-bots int") {
		t.Errorf("--help: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = worldbot(t, nil, nil, "help")
	if code != 2 || !strings.Contains(errOut, `worldbot: unexpected argument "help"`) {
		t.Errorf("help: exit %d, stderr %q", code, errOut)
	}
}
