package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func validConfig(t *testing.T, f *fixture) *Config {
	t.Helper()
	c, err := Parse(f.toml(baseTOML), noEnv)
	if err != nil {
		t.Fatalf("base config: %v", err)
	}
	return c
}

func TestValidate_BaseIsValid(t *testing.T) {
	f := newFixture(t)
	c := validConfig(t, f)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidate_Rules(t *testing.T) {
	f := newFixture(t)
	agent := func(fn func(a *Agent)) func(*Config) { return func(c *Config) { fn(&c.Agent) } }
	inst := func(i int, fn func(in *Instance)) func(*Config) { return func(c *Config) { fn(&c.Instances[i]) } }
	probe := func(fn func(p *Probe)) func(*Config) { return func(c *Config) { fn(&c.Probes[0]) } }
	dur := func(d time.Duration) Duration { return Duration{d} }
	cases := []struct {
		name  string
		mut   func(*Config)
		field string
		subs  []string
	}{
		{"license id with space", agent(func(a *Agent) { a.LicenseID = "a b" }), "agent.license_id", []string{`"a b"`, "[A-Za-z0-9_-]{1,64}"}},
		{"license id empty", agent(func(a *Agent) { a.LicenseID = "" }), "agent.license_id", []string{"is not set", "set agent.license_id"}},
		{"license id too long", agent(func(a *Agent) { a.LicenseID = strings.Repeat("x", 65) }), "agent.license_id", []string{"xxxxx"}},
		{"license id with dot", agent(func(a *Agent) { a.LicenseID = "a.b" }), "agent.license_id", []string{`"a.b"`}},
		{"nats url scheme", agent(func(a *Agent) { a.NATSURL = "http://x:4222" }), "agent.nats_url", []string{`"http://x:4222"`, `scheme "http"`}},
		{"nats url no host", agent(func(a *Agent) { a.NATSURL = "nats://" }), "agent.nats_url", []string{`"nats://"`, "no host"}},
		{"nats url no scheme", agent(func(a *Agent) { a.NATSURL = "127.0.0.1:4222" }), "agent.nats_url", []string{"127.0.0.1:4222"}},
		{"nats url empty entry", agent(func(a *Agent) { a.NATSURL = "nats://a:1,,nats://b:2" }), "agent.nats_url", []string{"empty entry"}},
		{"nats url empty", agent(func(a *Agent) { a.NATSURL = "" }), "agent.nats_url", []string{"empty entry"}},
		{"nats url bad port", agent(func(a *Agent) { a.NATSURL = "nats://h:99999" }), "agent.nats_url", []string{`"99999"`}},
		{"nats url second entry", agent(func(a *Agent) { a.NATSURL = "nats://a:1, wss://" }), "agent.nats_url", []string{`"wss://"`}},
		{"nats creds missing", agent(func(a *Agent) { a.NATSCreds = f.dir + "/none.creds" }), "agent.nats_creds", []string{"none.creds", "does not exist"}},
		{"nats creds dir", agent(func(a *Agent) { a.NATSCreds = f.dir }), "agent.nats_creds", []string{"is a directory"}},
		{"heartbeat zero", agent(func(a *Agent) { a.HeartbeatSeconds = 0 }), "agent.heartbeat_seconds", []string{"0 is too small"}},
		{"heartbeat negative", agent(func(a *Agent) { a.HeartbeatSeconds = -5 }), "agent.heartbeat_seconds", []string{"-5"}},
		{"state dir empty", agent(func(a *Agent) { a.StateDir = "" }), "agent.state_dir", []string{"empty"}},
		{"log level", agent(func(a *Agent) { a.LogLevel = "verbose" }), "agent.log_level", []string{`"verbose"`, "debug, info, warn, error"}},
		{"console line limit", agent(func(a *Agent) { a.ConsoleLineLimit = 0 }), "agent.console_line_limit", []string{"0 is not positive"}},
		{"console window", agent(func(a *Agent) { a.ConsoleWindow = dur(-time.Second) }), "agent.console_window", []string{`"-1s"`}},
		{"console ring", agent(func(a *Agent) { a.ConsoleRingLines = -1 }), "agent.console_ring_lines", []string{"-1"}},
		{"backoff initial", agent(func(a *Agent) { a.BackoffInitial = dur(0) }), "agent.restart_backoff_initial", []string{`"0s"`}},
		{"backoff max below initial", agent(func(a *Agent) { a.BackoffMax = dur(time.Millisecond) }), "agent.restart_backoff_max", []string{"1ms", "1s"}},
		{"root empty", agent(func(a *Agent) { a.InstancesRoot = "" }), "agent.instances_root", []string{"must not be empty", "/srv/corrosion"}},
		{"root relative", agent(func(a *Agent) { a.InstancesRoot = "srv/games" }), "agent.instances_root", []string{`"srv/games"`, "relative"}},
		{"root is /", agent(func(a *Agent) { a.InstancesRoot = "/" }), "agent.instances_root", []string{`"/"`, "root of a file system"}},
		{"root is a file", agent(func(a *Agent) { a.InstancesRoot = f.file }), "agent.instances_root", []string{"plain.txt", "not a directory"}},
		{"program relative", agent(func(a *Agent) { a.AllowedPrograms = []string{"bin/java"} }), "agent.allowed_programs[0]", []string{`"bin/java"`, "relative"}},
		{"program missing", agent(func(a *Agent) { a.AllowedPrograms = []string{"sh", f.dir + "/nowine"} }), "agent.allowed_programs[1]", []string{"nowine", "does not exist"}},
		{"program not executable", agent(func(a *Agent) { a.AllowedPrograms = []string{f.file} }), "agent.allowed_programs[0]", []string{"plain.txt", "not executable"}},
		{"program not on PATH", agent(func(a *Agent) { a.AllowedPrograms = []string{"no-such-program-xyz"} }), "agent.allowed_programs[0]", []string{`"no-such-program-xyz"`, "PATH"}},
		{"program empty", agent(func(a *Agent) { a.AllowedPrograms = []string{""} }), "agent.allowed_programs[0]", []string{"is empty"}},
		{"program twice", agent(func(a *Agent) { a.AllowedPrograms = []string{"sh", "sh"} }), "agent.allowed_programs[1]", []string{`"sh"`, "twice", "allowed_programs[0]"}},
		{"backoff max negative", agent(func(a *Agent) { a.BackoffMax = dur(-time.Minute) }), "agent.restart_backoff_max", []string{`"-1m0s"`}},
		{"healthy after", agent(func(a *Agent) { a.HealthyAfter = dur(-1) }), "agent.restart_healthy_after", []string{`"-1ns"`}},
		{"crash loop count", agent(func(a *Agent) { a.CrashLoopCount = 0 }), "agent.crash_loop_count", []string{"0"}},
		{"crash loop window", agent(func(a *Agent) { a.CrashLoopWindow = dur(0) }), "agent.crash_loop_window", []string{`"0s"`}},

		{"public address with port", agent(func(a *Agent) { a.PublicAddress = "203.0.113.7:28015" }), "agent.public_address", []string{`"203.0.113.7:28015"`, "without a port"}},
		{"public address url", agent(func(a *Agent) { a.PublicAddress = "https://game.example" }), "agent.public_address", []string{`"https://game.example"`}},
		{"public address bracketed", agent(func(a *Agent) { a.PublicAddress = "[2001:db8::1]" }), "agent.public_address", []string{`"[2001:db8::1]"`}},
		{"port name", inst(0, func(in *Instance) { in.Ports = []Port{{Name: "Game", Protocol: "udp", Port: 28015}} }), "instance[0].port[0].name", []string{`"Game"`, "[a-z][a-z0-9_]{0,31}"}},
		{"port name twice", inst(0, func(in *Instance) {
			in.Ports = []Port{{Name: "game", Protocol: "udp", Port: 1}, {Name: "game", Protocol: "tcp", Port: 2}}
		}), "instance[0].port[1].name", []string{`"game"`, "port[0]"}},
		{"port protocol", inst(0, func(in *Instance) { in.Ports = []Port{{Name: "game", Protocol: "sctp", Port: 1}} }), "instance[0].port[0].protocol", []string{`"sctp"`, "tcp or udp"}},
		{"port zero", inst(0, func(in *Instance) { in.Ports = []Port{{Name: "game", Protocol: "udp"}} }), "instance[0].port[0].port", []string{"0 is out of range", "1-65535"}},
		{"port too big", inst(0, func(in *Instance) { in.Ports = []Port{{Name: "game", Protocol: "tcp", Port: 65536}} }), "instance[0].port[0].port", []string{"65536"}},
		{"port number twice", inst(0, func(in *Instance) {
			in.Ports = []Port{{Name: "game", Protocol: "udp", Port: 7}, {Name: "query", Protocol: "udp", Port: 7}}
		}), "instance[0].port[1].port", []string{"udp 7", "port[0]"}},

		{"probe name empty", probe(func(p *Probe) { p.Name = "" }), "probe[0].name", []string{"empty"}},
		{"probe name duplicate", func(c *Config) { c.Probes = append(c.Probes, c.Probes[0]) }, "probe[1].name", []string{`"panel"`, "probe[0]"}},
		{"probe host empty", probe(func(p *Probe) { p.Host = "" }), "probe[0].host", []string{`""`}},
		{"probe host url", probe(func(p *Probe) { p.Host = "https://x" }), "probe[0].host", []string{`"https://x"`}},
		{"probe host with port", probe(func(p *Probe) { p.Host = "example.com:80" }), "probe[0].host", []string{`"example.com:80"`}},
		{"probe port zero", probe(func(p *Probe) { p.Port = 0 }), "probe[0].port", []string{"0 is out of range"}},
		{"probe port high", probe(func(p *Probe) { p.Port = 65536 }), "probe[0].port", []string{"65536"}},

		{"instance id upper", inst(2, func(in *Instance) { in.ID = "Host" }), "instance[2].id", []string{`"Host" is not a valid instance id (want [a-z0-9_-]{1,64}, not "host")`}},
		{"instance id host", inst(2, func(in *Instance) { in.ID = "host" }), "instance[2].id", []string{`"host"`}},
		{"instance id empty", inst(2, func(in *Instance) { in.ID = "" }), "instance[2].id", []string{`""`}},
		{"instance id duplicate", inst(2, func(in *Instance) { in.ID = "ether10" }), "instance[2].id", []string{`"ether10" duplicates instance[0]`}},
		{"game unknown", inst(1, func(in *Instance) { in.Game = "minecraft" }), "instance[1].game", []string{`"minecraft"`, "rust, conan"}},
		{"root empty unmanaged", inst(2, func(in *Instance) { in.Root = "" }), "instance[2].root", []string{"must be set"}},
		{"root empty managed", inst(0, func(in *Instance) { in.Root = "" }), "instance[0].root", []string{"must be set"}},
		{"root missing managed", inst(0, func(in *Instance) { in.Root = f.dir + "/nope" }), "instance[0].root", []string{"nope", "does not exist"}},
		{"root is a file", inst(0, func(in *Instance) { in.Root = f.file }), "instance[0].root", []string{"plain.txt", "not a directory"}},
		{"exec relative", inst(0, func(in *Instance) { in.Exec = "bin/game" }), "instance[0].exec", []string{`"bin/game"`, "relative"}},
		{"exec missing", inst(0, func(in *Instance) { in.Exec = f.dir + "/nogame" }), "instance[0].exec", []string{"nogame", "does not exist"}},
		{"exec not executable", inst(0, func(in *Instance) { in.Exec = f.file }), "instance[0].exec", []string{"plain.txt", "not executable"}},
		{"exec directory", inst(0, func(in *Instance) { in.Exec = f.root }), "instance[0].exec", []string{"is a directory"}},
		{"exec not on path", inst(0, func(in *Instance) { in.Exec = "no-such-game-binary-xyz" }), "instance[0].exec", []string{`"no-such-game-binary-xyz"`, "PATH"}},
		{"env key", inst(0, func(in *Instance) { in.Env = map[string]string{"A=B": "1"} }), "instance[0].env", []string{`"A=B"`}},
		{"stop timeout negative", inst(0, func(in *Instance) { in.StopTimeoutSeconds = -1 }), "instance[0].stop_timeout_seconds", []string{"-1 is negative"}},
		{"ready pattern", inst(1, func(in *Instance) { in.ReadyPattern = "(" }), "instance[1].ready_pattern", []string{`"("`, "missing closing )"}},
		{"restart unknown", inst(0, func(in *Instance) { in.Restart = "sometimes" }), "instance[0].restart", []string{`"sometimes"`, "never, on-crash, always"}},
		{"restart empty managed", inst(0, func(in *Instance) { in.Restart = "" }), "instance[0].restart", []string{`""`}},
		{"restart unknown unmanaged", inst(2, func(in *Instance) { in.Restart = "later" }), "instance[2].restart", []string{`"later"`}},
		{"rcon kind", inst(1, func(in *Instance) { in.RCON.Kind = "telnet" }), "instance[1].rcon.kind", []string{`"telnet"`, "source or webrcon"}},
		{"rcon kind not inferable", inst(2, func(in *Instance) {
			in.Game = "generic"
			in.RCON = &RCON{Port: 1, Password: "x"}
		}), "instance[2].rcon.kind", []string{`must be set for game "generic"`}},
		{"rcon port zero", inst(1, func(in *Instance) { in.RCON.Port = 0 }), "instance[1].rcon.port", []string{"0 is out of range"}},
		{"rcon port high", inst(1, func(in *Instance) { in.RCON.Port = 70000 }), "instance[1].rcon.port", []string{"70000"}},
		{"rcon password empty", inst(1, func(in *Instance) { in.RCON.Password = "" }), "instance[1].rcon.password", []string{"must not be empty"}},
		{"depends on unknown", inst(1, func(in *Instance) { in.DependsOn = []string{"ether10", "ether11"} }), "instance[1].depends_on[1]", []string{`"ether11" is not a configured instance`}},
		{"depends on itself", inst(1, func(in *Instance) { in.DependsOn = []string{"world10"} }), "instance[1].depends_on[0]", []string{`"world10" is the instance itself`}},
		{"depends on cycle", inst(0, func(in *Instance) { in.DependsOn = []string{"world10"} }), "instance[0].depends_on", []string{"dependency cycle: ether10 → world10 → ether10"}},
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
		})
	}
}

func TestValidate_Accepts(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name string
		mut  func(*Config)
	}{
		{"exec on PATH", func(c *Config) { c.Instances[0].Exec = "sh" }},
		{"unmanaged root missing", func(c *Config) { c.Instances[2].Root = filepath.Join(f.dir, "later") }},
		{"unmanaged restart empty", func(c *Config) { c.Instances[2].Restart = "" }},
		{"stop timeout zero", func(c *Config) { c.Instances[0].StopTimeoutSeconds = 0 }},
		{"nats url list", func(c *Config) { c.Agent.NATSURL = "nats://a:4222, tls://b:4222,ws://c,wss://d:443" }},
		{"nats creds file", func(c *Config) { c.Agent.NATSCreds = f.file }},
		{"probe ipv6", func(c *Config) { c.Probes[0].Host = "::1" }},
		{"probe hostname", func(c *Config) { c.Probes[0].Host = "cdn.corrosionmgmt.com" }},
		{"rcon webrcon", func(c *Config) { c.Instances[1].RCON.Kind = RCONWebRCON }},
		{"license id mixed", func(c *Config) { c.Agent.LicenseID = "Lic_-9" }},
		{"no instances", func(c *Config) { c.Instances = nil }},
		{"public address ipv4", func(c *Config) { c.Agent.PublicAddress = "203.0.113.7" }},
		{"public address ipv6", func(c *Config) { c.Agent.PublicAddress = "2001:db8::7" }},
		{"public address name", func(c *Config) { c.Agent.PublicAddress = "game.example.com" }},
		{"ports", func(c *Config) {
			c.Instances[0].Ports = []Port{{Name: "game", Protocol: "udp", Port: 28015}, {Name: "rcon", Protocol: "tcp", Port: 28015},
				{Name: "query", Protocol: "udp", Port: 28017}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := validConfig(t, f)
			tc.mut(c)
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestValidate_AllProblemsReported(t *testing.T) {
	f := newFixture(t)
	c := validConfig(t, f)
	c.Agent.LicenseID = "bad id"
	c.Agent.HeartbeatSeconds = 0
	c.Instances[1].RCON.Password = ""
	c.Instances[2].ID = "host"
	err := c.Validate()
	if n := len(fieldErrors(t, err)); n != 4 {
		t.Fatalf("got %d problems, want 4:\n%v", n, err)
	}
	if lines := strings.Count(err.Error(), "\n") + 1; lines != 4 {
		t.Errorf("want one line per problem, got %d lines:\n%v", lines, err)
	}
}

func TestValidate_RedactsNATSPassword(t *testing.T) {
	f := newFixture(t)
	cases := []struct{ url, pw string }{
		{"http://user:s3cret@h:1", "s3cret"}, {"nats://user:s3cret@h:99999", "s3cret"}, {"nats://user:s3cret@h:1,,x", "s3cret"},
		// An unescaped '/' (or '?', '#', a stray '%') in the password.
		{"nats://user:s3cret/tail@h:4222", "tail"}, {"http://user:s3cret/tail@h:4222", "tail"},
		{"nats://user:s3cret/tail@h:4222,,x", "tail"}, {"nats://user:99999/tail@h:4222", "99999"},
		{"nats://user:s3cret?tail@h", "tail"}, {"nats://user:s3cret#tail@h", "tail"}, {"nats://user:100%tail@h", "tail"},
	}
	for _, tc := range cases {
		c := validConfig(t, f)
		c.Agent.NATSURL = tc.url
		err := c.Validate()
		if err == nil {
			t.Fatalf("%s: no error", tc.url)
		}
		for _, part := range []string{"s3cret", tc.pw} {
			if strings.Contains(err.Error(), part) {
				t.Errorf("%s: error shows %q of the password: %v", tc.url, part, err)
			}
		}
	}
}

// TestValidate_NATSURLCredentialsCutShort: a password with an unescaped
// '/' (or '?', '#') ends the URL's authority early; nats.go would dial a
// "host" made of the user name and part of the password. Refused, naming
// the field, without the secret.
func TestValidate_NATSURLCredentialsCutShort(t *testing.T) {
	f := newFixture(t)
	for _, u := range []string{"nats://user:12/34@h:4222", "nats://admin:1234#5@h:4222", "nats://a:1, nats://user:1?x@h:4222", "nats://us er:pw@h"} {
		c := validConfig(t, f)
		c.Agent.NATSURL = u
		err := c.Validate()
		wantProblem(t, err, "agent.nats_url", "cannot be parsed", "xxxxx@")
		if strings.Contains(err.Error(), "34") || strings.Contains(err.Error(), "1234") {
			t.Errorf("%s: error shows the password: %v", u, err)
		}
	}
	c := validConfig(t, f)
	c.Agent.NATSURL = "nats://user:p%2Fss%40w@h:4222, nats://u:p:a@h2"
	if err := c.Validate(); err != nil {
		t.Errorf("escaped password refused: %v", err)
	}
}
