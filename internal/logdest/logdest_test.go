package logdest

import (
	"bytes"
	"testing"
)

func TestWriter(t *testing.T) {
	var out, errw bytes.Buffer
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		flag bool
		env  map[string]string
		want *bytes.Buffer
	}{
		{false, nil, &errw},
		{true, nil, &out},
		{false, map[string]string{AgentEnv: "world10"}, &out},
		{false, map[string]string{AgentEnv: ""}, &errw},
	}
	for _, c := range cases {
		if got := Writer(c.flag, env(c.env), &out, &errw); got != c.want {
			t.Errorf("flag %v env %v: wrong writer", c.flag, c.env)
		}
	}
}
