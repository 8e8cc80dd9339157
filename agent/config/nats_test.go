package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate_NATSAuth(t *testing.T) {
	f := newFixture(t)
	agent := func(fn func(a *Agent)) func(*Config) { return func(c *Config) { fn(&c.Agent) } }
	cases := []struct {
		name  string
		mut   func(*Config)
		field string
		subs  []string
	}{
		{"password without user", agent(func(a *Agent) { a.NATSPassword = "pw-secret" }), "agent.nats_password", []string{"without agent.nats_user"}},
		{"user without password", agent(func(a *Agent) { a.NATSUser = "agent" }), "agent.nats_user", []string{"without agent.nats_password"}},
		{"user and token", agent(func(a *Agent) { a.NATSUser, a.NATSPassword, a.NATSToken = "agent", "pw-secret", "tok-secret" }),
			"agent.nats_token", []string{"conflicts with agent.nats_user", "one way to authenticate"}},
		{"url credentials and user", agent(func(a *Agent) {
			a.NATSURL, a.NATSUser, a.NATSPassword = "nats://u:url-secret@h:4222", "agent", "pw-secret"
		}), "agent.nats_user", []string{"conflicts with agent.nats_url"}},
		{"url token and creds", agent(func(a *Agent) { a.NATSURL, a.NATSCreds = "nats://a:1,nats://tok-secret@h:4222", f.file }),
			"agent.nats_creds", []string{"conflicts with agent.nats_url"}},
		{"nkey and creds", agent(func(a *Agent) { a.NATSNKeySeedFile, a.NATSCreds = f.file, f.file }),
			"agent.nats_creds", []string{"conflicts with agent.nats_nkey_seed_file"}},
		{"nkey seed missing", agent(func(a *Agent) { a.NATSNKeySeedFile = f.dir + "/none.nk" }), "agent.nats_nkey_seed_file", []string{"none.nk", "does not exist"}},
		{"ca file missing", agent(func(a *Agent) { a.NATSCAFile = f.dir + "/none.pem" }), "agent.nats_ca_file", []string{"none.pem", "does not exist"}},
		{"ca file dir", agent(func(a *Agent) { a.NATSCAFile = f.dir }), "agent.nats_ca_file", []string{"is a directory"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := validConfig(t, f)
			tc.mut(c)
			err := c.Validate()
			wantProblem(t, err, tc.field, tc.subs...)
			if n := len(fieldErrors(t, err)); n != 1 {
				t.Errorf("got %d problems, want 1:\n%v", n, err)
			}
			for _, secret := range []string{"pw-secret", "tok-secret", "url-secret"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error shows a secret: %v", err)
				}
			}
		})
	}
}

func TestValidate_NATSAuthAccepts(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name string
		mut  func(a *Agent)
		want NATSAuth
	}{
		{"none", func(a *Agent) {}, NATSAuthNone},
		{"user and password", func(a *Agent) { a.NATSUser, a.NATSPassword = "agent", "p/@:%?#w" }, NATSAuthUserPassword},
		{"token", func(a *Agent) { a.NATSToken = "t/@:%?#" }, NATSAuthToken},
		{"nkey", func(a *Agent) { a.NATSNKeySeedFile = f.file }, NATSAuthNKey},
		{"creds", func(a *Agent) { a.NATSCreds = f.file }, NATSAuthCreds},
		{"url", func(a *Agent) { a.NATSURL = "nats://u:p%2Fw@h:4222" }, NATSAuthURL},
		{"ca with user", func(a *Agent) { a.NATSCAFile, a.NATSUser, a.NATSPassword = f.file, "u", "p" }, NATSAuthUserPassword},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := validConfig(t, f)
			tc.mut(&c.Agent)
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := c.Agent.NATSAuth(); got != tc.want {
				t.Errorf("NATSAuth() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestParse_NATSPasswordFromEnv: nats_password takes ${VAR} like every
// secret, and keeps any characters a URL could not hold.
func TestParse_NATSPasswordFromEnv(t *testing.T) {
	f := newFixture(t)
	ca := filepath.ToSlash(f.file)
	cfg := strings.Replace(baseTOML, `license_id = "lic-1"`, `license_id = "lic-1"
nats_user = "agent"
nats_password = "${NATS_PW}"
nats_ca_file = "`+ca+`"`, 1)
	c, err := Parse(f.toml(cfg), mapEnv(map[string]string{"NATS_PW": "p/@:%?#,w"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.NATSPassword != "p/@:%?#,w" || c.Agent.NATSUser != "agent" || c.Agent.NATSCAFile != ca {
		t.Errorf("agent: %+v", c.Agent)
	}
	if _, err := Parse(f.toml(cfg), noEnv); err == nil || !strings.Contains(err.Error(), "agent.nats_password: ${NATS_PW}") {
		t.Errorf("unset variable: %v", err)
	}
}
