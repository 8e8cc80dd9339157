package config

import "testing"

// TestParse_ReadinessAndEnvironment: the readiness budget defaults to 300 s
// and "running", inherit_env to false; bad values are refused by name.
func TestParse_ReadinessAndEnvironment(t *testing.T) {
	f := newFixture(t)
	const base = `
[agent]
license_id = "x"
[[instance]]
id = "a"
game = "generic"
root = "ROOT"
exec = "EXE"
ready_pattern = "^up"
`
	c, err := Parse(f.toml(base), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	in := c.Instances[0]
	if in.ReadyTimeoutSeconds != 300 || in.ReadyTimeoutAction != ReadyTimeoutRunning || in.InheritEnv {
		t.Fatalf("defaults %d %q %v", in.ReadyTimeoutSeconds, in.ReadyTimeoutAction, in.InheritEnv)
	}
	c, err = Parse(f.toml(base+"ready_timeout_seconds = 5\nready_timeout_action = \"fail\"\ninherit_env = true\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if in := c.Instances[0]; in.ReadyTimeoutSeconds != 5 || in.ReadyTimeoutAction != ReadyTimeoutFail || !in.InheritEnv {
		t.Fatalf("explicit values %+v", in)
	}
	_, err = Parse(f.toml(base+"ready_timeout_seconds = 0\nready_timeout_action = \"shrug\"\n"), noEnv)
	wantProblem(t, err, "instance[0].ready_timeout_seconds", "0 is too small")
	wantProblem(t, err, "instance[0].ready_timeout_action", `"shrug"`, "running, fail")
}
