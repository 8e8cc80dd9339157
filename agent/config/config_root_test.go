package config

import (
	"errors"
	"strings"
	"testing"
)

func TestAgent_RootRefusal(t *testing.T) {
	cases := []struct {
		name      string
		euid      int
		allowRoot bool
		refused   bool
	}{
		{"root without allow_root", 0, false, true},
		{"root with allow_root", 0, true, false},
		{"unprivileged user", 998, false, false},
		{"windows (no euid)", -1, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := Agent{AllowRoot: tc.allowRoot}
			err := a.RootRefusal(tc.euid)
			if got := errors.Is(err, ErrRunAsRoot); got != tc.refused {
				t.Fatalf("RootRefusal(%d) with allow_root=%v = %v, want refused=%v", tc.euid, tc.allowRoot, err, tc.refused)
			}
			if tc.refused && !strings.Contains(err.Error(), "allow_root = true") {
				t.Errorf("the refusal does not name the key: %v", err)
			}
		})
	}
}

func TestParse_AllowRoot(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{{"", false}, {"allow_root = true", true}, {"allow_root = false", false}} {
		c, err := Parse([]byte("[agent]\nlicense_id = \"x\"\n"+tc.line+"\n"), noEnv)
		if err != nil {
			t.Fatalf("%q: %v", tc.line, err)
		}
		if c.Agent.AllowRoot != tc.want {
			t.Errorf("%q: allow_root = %v, want %v", tc.line, c.Agent.AllowRoot, tc.want)
		}
	}
	if _, err := Parse([]byte("[agent]\nlicense_id = \"x\"\nallow_root = \"yes\"\n"), noEnv); err == nil {
		t.Error(`allow_root = "yes" accepted`)
	}
}
