package config

import (
	"strings"
	"testing"
)

func TestMetricsListen_DefaultIsOff(t *testing.T) {
	f := newFixture(t)
	if c := validConfig(t, f); c.Agent.MetricsListen != "" {
		t.Fatalf("metrics_listen defaults to %q, want \"\" (no endpoint)", c.Agent.MetricsListen)
	}
}

func TestMetricsListen_ParsedAndExpanded(t *testing.T) {
	f := newFixture(t)
	src := strings.Replace(string(f.toml(baseTOML)), "[agent]\n", "[agent]\nmetrics_listen = \"127.0.0.1:${METRICS_PORT}\"\n", 1)
	c, err := Parse([]byte(src), mapEnv(map[string]string{"METRICS_PORT": "9590"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.MetricsListen != ExampleMetricsListen {
		t.Fatalf("metrics_listen = %q, want %q", c.Agent.MetricsListen, ExampleMetricsListen)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestMetricsListen_Accepts(t *testing.T) {
	f := newFixture(t)
	for _, addr := range []string{"", "127.0.0.1:9590", "[::1]:9590", ":9590", "localhost:1", "0.0.0.0:65535"} {
		t.Run(addr, func(t *testing.T) {
			c := validConfig(t, f)
			c.Agent.MetricsListen = addr
			if err := c.Validate(); err != nil {
				t.Fatalf("%q refused: %v", addr, err)
			}
		})
	}
}

func TestMetricsListen_Refuses(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name, addr string
		subs       []string
	}{
		{"port only", "9590", []string{`"9590" is not a host:port address`, `"127.0.0.1:9590"`}},
		{"host only", "127.0.0.1", []string{`"127.0.0.1" is not a host:port address`}},
		{"url", "http://127.0.0.1:9590", []string{`"http://127.0.0.1:9590" is not a host:port address`}},
		{"path", "127.0.0.1:9590/metrics", []string{`bad port "9590/metrics"`}},
		{"port zero", "127.0.0.1:0", []string{`"127.0.0.1:0" has a bad port "0" (want 1-65535)`}},
		{"port high", "127.0.0.1:99999", []string{`bad port "99999"`}},
		{"port name", "localhost:http", []string{`bad port "http"`}},
		{"port empty", "127.0.0.1:", []string{`bad port ""`}},
		{"space in host", "local host:9590", []string{`bad host "local host"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := validConfig(t, f)
			c.Agent.MetricsListen = tc.addr
			err := c.Validate()
			wantProblem(t, err, "agent.metrics_listen", tc.subs...)
			if n := len(fieldErrors(t, err)); n != 1 {
				t.Errorf("got %d problems, want 1:\n%v", n, err)
			}
		})
	}
}
