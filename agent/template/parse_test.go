package template

import (
	"errors"
	"strings"
	"testing"
)

// base is a valid template touching every section; each case below
// breaks one field of it.
const base = `id = "t1"
name = "Test"
game = "generic"
version = 1

[[variable]]
key = "PORT"
type = "port"
default = 27000

[[variable]]
key = "MODE"
type = "enum"
options = ["a", "b"]
default = "a"

[[variable]]
key = "PASS"
type = "secret"
pattern = '[a-z]{4,8}'
required = true

[[variable]]
key = "SLOTS"
type = "int"
min = 1
max = 10
default = 5

[[variable]]
key = "NAME"
type = "string"
max_length = 8
default = "x"

[[variable]]
key = "ON"
type = "bool"
default = true

[[variable]]
key = "HOME_PAGE"
type = "url"
default = "https://example.com/"

[[port]]
name = "game"
protocol = "udp"
variable = "PORT"

[[port]]
name = "rcon"
protocol = "tcp"
default = 27020

[[source]]
[source.steamcmd]
app_id = 10
extra_apps = [1007]

[[source]]
when = { variable = "MODE", equals = "b" }
[source.http]
url = "https://example.com/a.zip"
sha256 = "` + sha + `"
extract = "zip"
into = "mods"

[[source]]
[source.github_release]
repo = "o/r"
asset = "a.tar.gz"
extract = "tar.gz"
reapply = "after_game_update"

[[config_file]]
path = "cfg/server.cfg"
format = "ini"
set = { "Server.Name" = "{{NAME}}" }

[run]
exec = "bin/game"
args = ["-port", "{{PORT}}", "-slots={{SLOTS}}"]
env = { GAME_PASS = "{{PASS}}" }

[[run.env_if]]
when = { variable = "ON", equals = "true" }
env = { FEATURE = "1" }

[run.ready]
regex = 'ready'
timeout = "1m"

[run.stop]
kind = "rcon"
value = "quit"

[run.console]
kind = "source_rcon"
port = "rcon"
password = "{{PASS}}"
`

const sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestParse_Base(t *testing.T) {
	tp, err := Parse([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if tp.Run.Stop.Timeout.Duration != DefaultStopTimeout || tp.Run.Stop.Then != StopThenKill ||
		tp.Sources[0].SteamCMD.Platform != PlatformLinux || tp.Variables[0].Name != "PORT" {
		t.Errorf("defaults not applied: %+v", tp.Run.Stop)
	}
}

// TestParse_RefusedNamingField: each field rule refuses a bad value with
// an error that names the field's path.
func TestParse_RefusedNamingField(t *testing.T) {
	cases := []struct {
		name     string
		old, new string // replace old (once) in base with new
		field    string // the error names this path
		msg      string // and holds this
	}{
		{"unknown top key", `version = 1`, "version = 1\nvesion = 2", "vesion", "unknown key"},
		{"unknown nested key", `extract = "zip"`, "extract = \"zip\"\nsha265 = \"x\"", "source[1].http.sha265", "unknown key"},
		{"bad id", `id = "t1"`, `id = "T 1"`, "id", "not a template id"},
		{"no name", `name = "Test"`, `name = ""`, "name", "must be set"},
		{"unknown game", `game = "generic"`, `game = "doom"`, "game", "not a known game"},
		{"version 0", `version = 1`, `version = 0`, "version", "too small"},
		{"variable key shape", `key = "PORT"`, `key = "port"`, "variable[0].key", "not a variable key"},
		{"variable key reserved", `key = "NAME"`, `key = "LD_PRELOAD"`, "variable[4].key", "reserved"},
		{"variable key corrosion", `key = "NAME"`, `key = "CORROSION_LICENSE_ID"`, "variable[4].key", "reserved"},
		{"variable key path", `key = "NAME"`, `key = "PATH"`, "variable[4].key", "reserved"},
		{"variable duplicate", `key = "NAME"`, `key = "SLOTS"`, "variable[4].key", "duplicates variable[3]"},
		{"variable type", `type = "bool"`, `type = "float"`, "variable[5].type", "not one of"},
		{"min on string", `max_length = 8`, "max_length = 8\nmin = 1", "variable[4].min", "int and port variables only"},
		{"min above max", `min = 1`, `min = 11`, "variable[3].max", "less than min"},
		{"max_length on int", `max = 10`, "max = 10\nmax_length = 3", "variable[3].max_length", "only"},
		{"max_length negative", `max_length = 8`, `max_length = -1`, "variable[4].max_length", "out of range"},
		{"pattern compiles", `pattern = '[a-z]{4,8}'`, `pattern = '[a-z'`, "variable[2].pattern", "does not compile"},
		{"pattern on int", `max = 10`, "max = 10\npattern = 'x'", "variable[3].pattern", "only"},
		{"options on string", `max_length = 8`, "max_length = 8\noptions = ['a']", "variable[4].options", "enum variables only"},
		{"enum without options", `options = ["a", "b"]`, `options = []`, "variable[1].options", "at least one option"},
		{"enum option twice", `options = ["a", "b"]`, `options = ["a", "a"]`, "variable[1].options[1]", "twice"},
		{"default not an option", `default = "a"`, `default = "c"`, "variable[1].default", "not one of"},
		{"default out of range", `default = 5`, `default = 50`, "variable[3].default", "more than 10"},
		{"default too long", `default = "x"`, `default = "123456789"`, "variable[4].default", "at most 8"},
		{"default not a url", `default = "https://example.com/"`, `default = "ftp://x/"`, "variable[6].default", "not an absolute http"},
		{"default not a bool", `default = true`, `default = "yes"`, "variable[5].default", "not a boolean"},
		{"default not a port", `default = 27000`, `default = 70000`, "variable[0].default", "not a port"},
		{"locked required without default", `required = true`, "required = true\nuser_editable = false", "variable[2].user_editable", "required"},
		{"port name", `name = "game"`, `name = "Game"`, "port[0].name", "not a port name"},
		{"port duplicate", `name = "rcon"`, `name = "game"`, "port[1].name", "duplicates port[0]"},
		{"port protocol", `protocol = "udp"`, `protocol = "sctp"`, "port[0].protocol", "not one of"},
		{"port default range", `default = 27020`, `default = 0`, "port[1].default", "out of range"},
		{"port variable not a port", `variable = "PORT"`, `variable = "SLOTS"`, "port[0].variable", "not a port variable"},
		{"port offset without variable", `default = 27020`, "default = 27020\noffset = 1", "port[1].offset", "without a variable"},
		{"port offset range", `variable = "PORT"`, "variable = \"PORT\"\noffset = 500", "port[0].offset", "out of range"},
		{"source two kinds", "[[source]]\n[source.steamcmd]", "[[source]]\n[source.http]\nurl = \"https://x/\"\nsha256 = \"" + sha + "\"\n[source.steamcmd]", "source[0]", "exactly one"},
		{"source no kind", "[[source]]\n[source.steamcmd]\napp_id = 10\nextra_apps = [1007]", "[[source]]", "source[0]", "exactly one"},
		{"steam app id", `app_id = 10`, `app_id = 0`, "source[0].steamcmd.app_id", "not a Steam app id"},
		{"steam platform", `app_id = 10`, "app_id = 10\nplatform = \"mac\"", "source[0].steamcmd.platform", "not one of"},
		{"steam validate", `app_id = 10`, "app_id = 10\nvalidate = \"sometimes\"", "source[0].steamcmd.validate", "not one of"},
		{"steam extra app twice", `extra_apps = [1007]`, `extra_apps = [1007, 1007]`, "source[0].steamcmd.extra_apps[1]", "twice"},
		{"steam beta password alone", `app_id = 10`, "app_id = 10\nbeta_password = \"x\"", "source[0].steamcmd.beta_password", "without a branch"},
		{"steam branch reference", `app_id = 10`, "app_id = 10\nbranch = \"{{NOPE}}\"", "source[0].steamcmd.branch", "NOPE"},
		{"when key twice", `equals = "b" }`, `equals = "b", variable = "X" }`, "", "already been defined"},
		{"when unknown variable 2", `{ variable = "MODE", equals = "b" }`, `{ variable = "NOPE", equals = "b" }`, "source[1].when.variable", "not a variable"},
		{"when never holds", `{ variable = "MODE", equals = "b" }`, `{ variable = "MODE", equals = "c" }`, "source[1].when.equals", "can never hold"},
		{"when on secret", `{ variable = "MODE", equals = "b" }`, `{ variable = "PASS", equals = "abcd" }`, "source[1].when.variable", "secret"},
		{"http url", `url = "https://example.com/a.zip"`, `url = "file:///etc/passwd"`, "source[1].http.url", "not an absolute http"},
		{"http url from a secret", `url = "https://example.com/a.zip"`, `url = "https://example.com/{{PASS}}.zip"`, "source[1].http.url", "is a secret"},
		{"http sha256", `sha256 = "` + sha + `"`, `sha256 = "abc"`, "source[1].http.sha256", "not 64 hex digits"},
		{"http extract", `extract = "zip"`, `extract = "rar"`, "source[1].http.extract", "not one of"},
		{"http into escapes", `into = "mods"`, `into = "../../etc"`, "source[1].http.into", "leaves the instance root"},
		{"http into absolute", `into = "mods"`, `into = "/etc"`, "source[1].http.into", "absolute"},
		{"github repo", `repo = "o/r"`, `repo = "o/r/x"`, "source[2].github_release.repo", "owner/name"},
		{"github asset", `asset = "a.tar.gz"`, `asset = "../a"`, "source[2].github_release.asset", "not an asset"},
		{"github reapply", `reapply = "after_game_update"`, `reapply = "daily"`, "source[2].github_release.reapply", "not one of"},
		{"config path", `path = "cfg/server.cfg"`, `path = "../x"`, "config_file[0].path", "leaves"},
		{"config format", `format = "ini"`, `format = "toml"`, "config_file[0].format", "not one of"},
		{"config empty set", `set = { "Server.Name" = "{{NAME}}" }`, `set = {}`, "config_file[0].set", "empty"},
		{"config value reference", `"{{NAME}}" }`, `"{{NAMES}}" }`, `config_file[0].set."Server.Name"`, "NAMES"},
		{"run exec and program", `exec = "bin/game"`, "exec = \"bin/game\"\nprogram = \"java\"", "run", "exactly one of exec, program"},
		{"run neither", `exec = "bin/game"`, ``, "run", "exactly one of exec, program"},
		{"run exec escapes", `exec = "bin/game"`, `exec = "../../bin/sh"`, "run.exec", "leaves"},
		{"run exec absolute", `exec = "bin/game"`, `exec = "/bin/sh"`, "run.exec", "absolute"},
		{"run program relative path", `exec = "bin/game"`, `program = "bin/java"`, "run.program", "neither a program name"},
		{"args unknown variable", `"-slots={{SLOTS}}"`, `"{{SLOT}}"`, "run.args[2]", "{{SLOT}}"},
		{"args malformed", `"-slots={{SLOTS}}"`, `"{{ SLOTS }}"`, "run.args[2]", "malformed"},
		{"args unterminated", `"-slots={{SLOTS}}"`, `"{{SLOTS"`, "run.args[2]", "without"},
		{"args stray close", `"-slots={{SLOTS}}"`, `"SLOTS}}"`, "run.args[2]", "without"},
		{"env reserved", `GAME_PASS =`, `PATH =`, "run.env", "reserved"},
		{"env corrosion", `GAME_PASS =`, `CORROSION_INSTANCE_ID =`, "run.env", "reserved"},
		{"env lowercase reserved", `GAME_PASS =`, `Path =`, "run.env", "reserved"},
		{"env key shape", `GAME_PASS =`, `"A-B" =`, "run.env", "not an environment key"},
		{"env value reference", `"{{PASS}}" }`, `"{{PAS}}" }`, "run.env.GAME_PASS", "{{PAS}}"},
		{"env_if reserved", `FEATURE = "1"`, `LD_AUDIT = "1"`, "run.env_if[0].env", "reserved"},
		{"env_if condition", `{ variable = "ON", equals = "true" }`, `{ variable = "ON", equals = "1" }`, "run.env_if[0].when.equals", "never hold"},
		{"ready regex", `regex = 'ready'`, `regex = '(ready'`, "run.ready.regex", "does not compile"},
		{"ready timeout", `timeout = "1m"`, `timeout = "-1m"`, "run.ready.timeout", "not positive"},
		{"ready timeout syntax", `timeout = "1m"`, `timeout = "soon"`, "", "soon"},
		{"stop kind", `kind = "rcon"`, `kind = "pray"`, "run.stop.kind", "not one of"},
		{"stop signal", "kind = \"rcon\"\nvalue = \"quit\"", "kind = \"signal\"\nvalue = \"SIGKILL\"", "run.stop.value", "not one of"},
		{"stop command two lines", `value = "quit"`, `value = "a\nb"`, "run.stop.value", "one-line"},
		{"stop then", `value = "quit"`, "value = \"quit\"\nthen = \"wait\"", "run.stop.then", "not one of"},
		{"console kind", `kind = "source_rcon"`, `kind = "telnet"`, "run.console.kind", "not one of"},
		{"console port", `port = "rcon"`, `port = "game"`, "run.console.port", "not a tcp port"},
		{"console password", `password = "{{PASS}}"`, `password = ""`, "run.console.password", "must be set"},
		{"rcon stop with stdin console", "kind = \"source_rcon\"\nport = \"rcon\"\npassword = \"{{PASS}}\"", `kind = "stdin"`, "run.stop.kind", "rcon but run.console is stdin"},
		{"stdin console with port", "kind = \"source_rcon\"", "kind = \"stdin\"", "run.console", "no port"},
		{"broadcast without message", `password = "{{PASS}}"`, "password = \"{{PASS}}\"\nbroadcast = \"say\"", "run.console.broadcast", "{message} 0 times"},
		{"broadcast message twice", `password = "{{PASS}}"`, "password = \"{{PASS}}\"\nbroadcast = \"say {message} {message}\"", "run.console.broadcast", "{message} 2 times"},
		{"broadcast two lines", `password = "{{PASS}}"`, "password = \"{{PASS}}\"\nbroadcast = \"say {message}\\nquit\"", "run.console.broadcast", "one line"},
		{"broadcast too long", `password = "{{PASS}}"`, "password = \"{{PASS}}\"\nbroadcast = \"say {message}" + strings.Repeat("!", 250) + "\"", "run.console.broadcast", "at most 256"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(base, tc.old) {
				t.Fatalf("base lacks %q", tc.old)
			}
			_, err := Parse([]byte(strings.Replace(base, tc.old, tc.new, 1)))
			if err == nil {
				t.Fatal("parsed")
			}
			if tc.field != "" && !hasField(err, tc.field) {
				t.Errorf("no error for field %s in:\n%v", tc.field, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error lacks %q:\n%v", tc.msg, err)
			}
		})
	}
}

// hasField reports whether err (joined or not) holds a *FieldError for
// field.
func hasField(err error, field string) bool {
	if fe := (*FieldError)(nil); errors.As(err, &fe) && fe.Field == field {
		return true
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if hasField(e, field) {
				return true
			}
		}
	}
	return false
}

func TestParse_SyntaxErrorHasPosition(t *testing.T) {
	_, err := Parse([]byte("id = \"x\"\nname = = 2\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want line 2", err)
	}
}

func TestParse_TooLarge(t *testing.T) {
	_, err := Parse(make([]byte, MaxSize+1))
	if err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Fatalf("err = %v", err)
	}
}

// TestParse_LoaderEnvOnlyInRoot: LD_LIBRARY_PATH is the game's own
// business when it runs from the root, refused for a host program.
func TestParse_LoaderEnvOnlyInRoot(t *testing.T) {
	inRoot := strings.Replace(base, `GAME_PASS =`, `LD_LIBRARY_PATH = "lib", GAME_PASS =`, 1)
	if _, err := Parse([]byte(inRoot)); err != nil {
		t.Fatalf("exec in root: %v", err)
	}
	program := strings.Replace(inRoot, `exec = "bin/game"`, `program = "java"`, 1)
	if _, err := Parse([]byte(program)); err == nil || !hasField(err, "run.env") {
		t.Fatalf("host program: err = %v, want run.env reserved", err)
	}
}
