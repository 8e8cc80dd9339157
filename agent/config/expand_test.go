package config

import (
	"errors"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	env := mapEnv(map[string]string{"A": "alpha", "EMPTY": "", "B_2": "x}y", "INJ": "${A}"})
	cases := []struct {
		in, want string
		err      error
	}{
		{"plain", "plain", nil},
		{"${A}", "alpha", nil},
		{"pre-${A}-post", "pre-alpha-post", nil},
		{"${A}${B_2}", "alphax}y", nil},
		{"${EMPTY}", "", nil},
		{"${INJ}", "${A}", nil}, // a value is not expanded again
		{"$${A}", "${A}", nil},
		{"$$${A}", "$${A}", nil}, // leftmost $${ wins: "$" then a literal "${A}"
		{"$${A}${A}", "${A}alpha", nil},
		{"cost $5 and $A", "cost $5 and $A", nil},
		{"$", "$", nil},
		{"trailing $$", "trailing $$", nil},
		{"${UNSET}", "", ErrUnsetEnv},
		{"${A", "", ErrBadEnvExpr},
		{"${}", "", ErrBadEnvExpr},
		{"${1A}", "", ErrBadEnvExpr},
		{"${A:-x}", "", ErrBadEnvExpr},
		{"${ A }", "", ErrBadEnvExpr},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Expand(tc.in, env)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Expand(%q) error = %v, want %v", tc.in, err, tc.err)
			}
			if err == nil && got != tc.want {
				t.Errorf("Expand(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestParse_EnvExpansion(t *testing.T) {
	f := newFixture(t)
	env := mapEnv(map[string]string{
		"LICENSE": "lic-9", "NATS": "nats://10.0.0.1:4222", "CREDS": f.file,
		"PASS": "s3cret", "TOKEN": "tok", "ARG": "--fast", "INST_DIR": f.root,
		// A value that would break out of a TOML string if substituted
		// into the source text.
		"INJECT": "x\"\nheartbeat_seconds = -1\n",
	})
	c, err := Parse(f.toml(`
[agent]
license_id = "${LICENSE}"
nats_url = "${NATS}, nats://127.0.0.1:4222"
nats_creds = "${CREDS}"
[[instance]]
id = "a"
game = "worldsrv"
root = "${INST_DIR}"
exec = "EXE"
args = ["${ARG}", "literal $${ARG}"]
env = { TOKEN = "${TOKEN}", RAW = "$5" }
stop_command = "${INJECT}"
[instance.rcon]
port = 1
password = "${PASS}"
`), env)
	if err != nil {
		t.Fatal(err)
	}
	in := c.Instance("a")
	checks := map[string][2]string{
		"license_id":  {c.Agent.LicenseID, "lic-9"},
		"nats_url[0]": {c.NATSURLs()[0], "nats://10.0.0.1:4222"},
		"nats_creds":  {c.Agent.NATSCreds, f.file},
		"root":        {in.Root, f.root},
		"args[0]":     {in.Args[0], "--fast"},
		"args[1]":     {in.Args[1], "literal ${ARG}"},
		"env.TOKEN":   {in.Env["TOKEN"], "tok"},
		"env.RAW":     {in.Env["RAW"], "$5"},
		"password":    {in.RCON.Password, "s3cret"},
		"stop":        {in.StopCommand, "x\"\nheartbeat_seconds = -1\n"},
	}
	for name, got := range checks {
		if got[0] != got[1] {
			t.Errorf("%s = %q, want %q", name, got[0], got[1])
		}
	}
	if c.Agent.HeartbeatSeconds != 60 {
		t.Errorf("injected value reached TOML: heartbeat_seconds = %d", c.Agent.HeartbeatSeconds)
	}
}

func TestParse_EnvErrorsNameFieldAndVariable(t *testing.T) {
	f := newFixture(t)
	_, err := Parse(f.toml(`
[agent]
license_id = "x"
nats_url = "${NATS_URL}"
[[instance]]
id = "a"
game = "worldsrv"
root = "ROOT"
exec = "EXE"
env = { DB = "${DB_PASS}" }
args = ["ok", "${MISSING_ARG}"]
[instance.rcon]
port = 1
password = "${RCON_PASS"
`), noEnv)
	wantProblem(t, err, "agent.nats_url", "${NATS_URL}", "not set")
	wantProblem(t, err, "instance[0].env.DB", "${DB_PASS}", "not set")
	wantProblem(t, err, "instance[0].args[1]", "${MISSING_ARG}")
	wantProblem(t, err, "instance[0].rcon.password", "unterminated")
	if !errors.Is(err, ErrUnsetEnv) || !errors.Is(err, ErrBadEnvExpr) {
		t.Errorf("sentinels not wrapped: %v", err)
	}
	if n := len(fieldErrors(t, err)); n != 4 {
		t.Errorf("got %d problems, want 4:\n%v", n, err)
	}
}

func TestParse_UnknownTableReportedOnce(t *testing.T) {
	_, err := Parse([]byte("[agent]\nlicense_id = \"x\"\n[agnet]\nx = 1\ny = { z = 2 }\n"), noEnv)
	wantProblem(t, err, "agnet", "unknown key")
	if n := strings.Count(err.Error(), "unknown key"); n != 1 {
		t.Errorf("reported %d times:\n%v", n, err)
	}
}
