package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/corrosion/corrosion/agent/wire"
)

func TestParse_Defaults(t *testing.T) {
	f := newFixture(t)
	c, err := Parse(f.toml(`
[agent]
license_id = "x"
[[instance]]
id = "a"
game = "generic"
root = "ROOT"
exec = "EXE"
[instance.rcon]
port = 1
kind = "source"
password = "p"
[[instance]]
id = "b"
game = "rust"
root = "ROOT"
[instance.rcon]
port = 2
password = "p"
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := Agent{
		LicenseID: "x", NATSURL: "nats://127.0.0.1:4222", HeartbeatSeconds: 60,
		StateDir: "/var/lib/corrosion-agent", LogLevel: "info",
		ConsoleLineLimit: 2000, ConsoleWindow: Duration{100 * time.Millisecond}, ConsoleRingLines: 1000,
		BackoffInitial: Duration{time.Second}, BackoffMax: Duration{time.Minute},
		HealthyAfter: Duration{5 * time.Minute}, CrashLoopCount: 5, CrashLoopWindow: Duration{10 * time.Minute},
		InstancesRoot: DefaultInstancesRoot(),
	}
	if !reflect.DeepEqual(c.Agent, want) {
		t.Errorf("agent defaults:\n got %+v\nwant %+v", c.Agent, want)
	}
	a, b := c.Instances[0], c.Instances[1]
	if a.Label != "a" || a.Restart != RestartOnCrash || a.StopTimeoutSeconds != 30 || a.StopTimeout() != 30*time.Second {
		t.Errorf("managed instance defaults: %+v", a)
	}
	if b.Label != "b" || b.Restart != "" || b.Managed() {
		t.Errorf("unmanaged instance defaults: %+v", b)
	}
	if a.RCON.Kind != RCONSource || b.RCON.Kind != RCONWebRCON {
		t.Errorf("rcon kinds: %q %q, want source (explicit), webrcon (inferred from rust)", a.RCON.Kind, b.RCON.Kind)
	}
	if c.Agent.HeartbeatInterval() != time.Minute || c.Agent.SlogLevel().String() != "INFO" {
		t.Errorf("helpers: %v %v", c.Agent.HeartbeatInterval(), c.Agent.SlogLevel())
	}
}

// TestParse_ExplicitValuesKept: a key the file sets is never replaced by a
// default, so an explicit zero is validated (or honoured).
func TestParse_ExplicitValuesKept(t *testing.T) {
	f := newFixture(t)
	_, err := Parse(f.toml(`
[agent]
license_id = "x"
heartbeat_seconds = 0
console_window = "0s"
log_level = ""
`), noEnv)
	wantProblem(t, err, "agent.heartbeat_seconds", "0 is too small")
	wantProblem(t, err, "agent.console_window", `"0s"`)
	wantProblem(t, err, "agent.log_level", `""`)

	c, err := Parse(f.toml(`
[agent]
license_id = "x"
[[instance]]
id = "a"
game = "generic"
root = "ROOT"
exec = "EXE"
stop_timeout_seconds = 0
label = ""
[[instance]]
id = "b"
game = "generic"
root = "ROOT"
exec = "EXE"
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if c.Instances[0].StopTimeoutSeconds != 0 || c.Instances[0].Label != "" {
		t.Errorf("explicit zero values replaced: %+v", c.Instances[0])
	}
	if c.Instances[1].StopTimeoutSeconds != 30 || c.Instances[1].Label != "b" {
		t.Errorf("second instance got no defaults: %+v", c.Instances[1])
	}
}

func TestParse_TOMLErrors(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"unknown top-level key", "colour = 1\n[agent]\nlicense_id = \"x\"", []string{"colour: unknown key"}},
		{"unknown agent key", "[agent]\nlicense_id = \"x\"\nlicence = \"y\"", []string{"agent.licence: unknown key"}},
		{"unknown instance key", "[agent]\nlicense_id = \"x\"\n[[instance]]\nid = \"a\"\n[[instance]]\nid = \"b\"\n[instance.rcon]\npasword = \"x\"\n",
			[]string{"instance[1].rcon.pasword: unknown key"}},
		{"unknown table", "[agent]\nlicense_id = \"x\"\n[agnet]\nx = 1", []string{"agnet: unknown key"}},
		{"unknown probe key", "[[probe]]\nname = \"a\"\nhots = \"h\"", []string{"probe[0].hots: unknown key"}},
		{"syntax error", "[agent]\nlicense_id = \"x\"\nheartbeat_seconds = = 3\n", []string{"toml: line 3, column"}},
		{"unterminated string", "[agent]\n\nlicense_id = \"x\n", []string{"toml: line 3, column"}},
		{"type mismatch", "[agent]\nheartbeat_seconds = \"sixty\"\n", []string{"line 2", "heartbeat_seconds"}},
		{"bad duration", "[agent]\n\nconsole_window = \"fast\"\n", []string{"toml: line 3, column", "console_window"}},
		{"duplicate key", "[agent]\nlicense_id = \"x\"\nlicense_id = \"y\"\n", []string{"toml: line 3"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in), noEnv)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestParse_SyntaxErrorPosition(t *testing.T) {
	_, err := Parse([]byte("[agent]\nlicense_id = \"x\"\nheartbeat_seconds = = 3\n"), noEnv)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("want *SyntaxError, got %T %v", err, err)
	}
	if se.Line != 3 || se.Column < 1 {
		t.Errorf("position %d:%d, want line 3", se.Line, se.Column)
	}
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		t.Error("SyntaxError does not unwrap to toml.ParseError")
	}
}

func TestParse_UnknownKeyIsErrUnknownKey(t *testing.T) {
	_, err := Parse([]byte("[agent]\nlicense_id = \"x\"\nbogus = 1\n"), noEnv)
	if !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("want ErrUnknownKey, got %v", err)
	}
}

func TestParse_Example(t *testing.T) {
	data, err := os.ReadFile("testdata/example.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{"srv/ether10", "srv/world10", "bin"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, exe := range []string{"ether", "worldsrv"} {
		if err := os.WriteFile(filepath.Join(bin, exe), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := strings.ReplaceAll(string(data), "/srv/corrosion/", filepath.ToSlash(dir)+"/srv/")
	s = strings.ReplaceAll(s, "/usr/local/bin/", filepath.ToSlash(bin)+"/")
	env := mapEnv(map[string]string{"RS_DB_PASS": "db-secret", "WORLD10_RCON_PASSWORD": "rcon-secret"})
	c, err := Parse([]byte(s), env)
	if err != nil {
		t.Fatal(err)
	}
	w := c.Instance("world10")
	if w == nil || w.RCON.Password != "rcon-secret" || w.Env["RS_RCON_PASSWORD"] != "rcon-secret" {
		t.Fatalf("world10 not expanded: %+v", w)
	}
	if got := c.Instance("ether10").Env["RS_DB_PASS"]; got != "db-secret" {
		t.Errorf("env value not expanded: %q", got)
	}
	if got := c.NATSURLs(); !reflect.DeepEqual(got, []string{"nats://127.0.0.1:4222", "nats://127.0.0.2:4222"}) {
		t.Errorf("NATSURLs = %q", got)
	}
	order, err := c.StartOrder()
	if err != nil {
		t.Fatal(err)
	}
	if ids := idsOf(order); !reflect.DeepEqual(ids, []string{"ether10", "world10", "rust-main"}) {
		t.Errorf("start order %v", ids)
	}
	if len(c.Probes) != 2 || c.Instance("rust-main").Managed() || c.Instance("nope") != nil {
		t.Errorf("probes/instances wrong: %+v", c)
	}
}

// TestExample_DocumentsEveryKey: every TOML key of the structs appears in
// the example config, so the example stays complete as keys are added.
func TestExample_DocumentsEveryKey(t *testing.T) {
	data, err := os.ReadFile("testdata/example.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []any{Agent{}, Probe{}, Instance{}, RCON{}, Files{}} {
		rt := reflect.TypeOf(typ)
		for i := range rt.NumField() {
			tag := rt.Field(i).Tag.Get("toml")
			if tag == "" || tag == "-" {
				continue
			}
			if !strings.Contains(string(data), "\n"+tag+" =") && !strings.Contains(string(data), "."+tag+"]") {
				t.Errorf("example.toml does not show %s.%s", rt.Name(), tag)
			}
		}
	}
}

func TestLoad(t *testing.T) {
	f := newFixture(t)
	good := filepath.Join(f.dir, "good.toml")
	bad := filepath.Join(f.dir, "bad.toml")
	if err := os.WriteFile(good, f.toml(baseTOML), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("[agent]\nlicense_id = \"a b\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(good); err != nil || len(c.Instances) != 3 {
		t.Fatalf("Load(good) = %v, %v", c, err)
	}
	_, err := Load(bad)
	if err == nil || !strings.Contains(err.Error(), "config "+bad+":\nagent.license_id: \"a b\"") {
		t.Errorf("Load(bad) = %v", err)
	}
	if _, err := Load(filepath.Join(f.dir, "none.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want ErrNotExist", err)
	}
}

func TestApplyDefaults_HandBuilt(t *testing.T) {
	c := &Config{Instances: []Instance{{ID: "w", Exec: "/x"}, {ID: "u", RCON: &RCON{}, Game: "conan"}}}
	c.ApplyDefaults()
	if c.Agent.HeartbeatSeconds != 60 || c.Agent.NATSURL != DefaultNATSURL || c.Agent.StateDir != DefaultStateDir() {
		t.Errorf("agent: %+v", c.Agent)
	}
	if c.Instances[0].Restart != RestartOnCrash || c.Instances[0].Label != "w" || c.Instances[1].Restart != "" {
		t.Errorf("instances: %+v", c.Instances)
	}
	if c.Instances[1].RCON.Kind != RCONSource {
		t.Errorf("rcon kind %q, want source for conan", c.Instances[1].RCON.Kind)
	}
}

func TestNATSURLs(t *testing.T) {
	cases := map[string][]string{
		"nats://a:1":                      {"nats://a:1"},
		" nats://a:1 ,tls://b:2,, ws:// ": {"nats://a:1", "tls://b:2", "ws://"},
		"":                                nil,
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			c := &Config{Agent: Agent{NATSURL: in}}
			if got := c.NATSURLs(); !reflect.DeepEqual(got, want) {
				t.Errorf("NATSURLs(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func idsOf(list []*Instance) []string {
	ids := make([]string, len(list))
	for i, in := range list {
		ids[i] = in.ID
	}
	return ids
}

// TestParse_PortsAndPublicAddress reads [agent] public_address and
// [[instance.port]] as docs/agent.md writes them, and reports the ports as
// the heartbeat carries them (the query port answering A2S).
func TestParse_PortsAndPublicAddress(t *testing.T) {
	f := newFixture(t)
	c, err := Parse(f.toml(`
[agent]
license_id = "lic-1"
public_address = "game.example.com"

[[instance]]
id = "rust1"
game = "rust"
root = "ROOT"
exec = "EXE"
restart = "never"

[[instance.port]]
name = "game"
protocol = "udp"
port = 28015

[[instance.port]]
name = "query"
protocol = "udp"
port = 28017
`), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Agent.PublicAddress != "game.example.com" {
		t.Errorf("public_address = %q", c.Agent.PublicAddress)
	}
	got := c.Instances[0].PortInfos()
	want := []wire.BoundPortInfo{{Name: "game", Protocol: "udp", Port: 28015}, {Name: "query", Protocol: "udp", Port: 28017}}
	if !slices.Equal(got, want) {
		t.Fatalf("ports = %+v, want %+v", got, want)
	}
	if got[0].Query() || !got[1].Query() {
		t.Errorf("query ports: %v %v, want only the udp port named query", got[0].Query(), got[1].Query())
	}
}
