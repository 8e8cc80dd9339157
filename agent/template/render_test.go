package template

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func mustParse(t *testing.T, doc string) Template {
	t.Helper()
	tp, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// TestValues_Refused: each variable rule refuses a bad value naming the
// variable; a secret's value never appears in the error.
func TestValues_Refused(t *testing.T) {
	tp := mustParse(t, base)
	cases := []struct {
		name   string
		values map[string]string
		key    string
		msg    string
	}{
		{"unknown variable", map[string]string{"PASS": "abcd", "NOPE": "1"}, "NOPE", "not a variable"},
		{"required missing", map[string]string{}, "PASS", "is required"},
		{"secret pattern", map[string]string{"PASS": "SECRETVALUE"}, "PASS", "does not match"},
		{"secret too long", map[string]string{"PASS": strings.Repeat("s", 5000)}, "PASS", "characters long"},
		{"int not int", map[string]string{"PASS": "abcd", "SLOTS": "many"}, "SLOTS", "not an integer"},
		{"int below min", map[string]string{"PASS": "abcd", "SLOTS": "0"}, "SLOTS", "less than 1"},
		{"int above max", map[string]string{"PASS": "abcd", "SLOTS": "11"}, "SLOTS", "more than 10"},
		{"port range", map[string]string{"PASS": "abcd", "PORT": "65536"}, "PORT", "not a port"},
		{"bool", map[string]string{"PASS": "abcd", "ON": "yes"}, "ON", "not a boolean"},
		{"enum", map[string]string{"PASS": "abcd", "MODE": "c"}, "MODE", "not one of a, b"},
		{"string length", map[string]string{"PASS": "abcd", "NAME": "123456789"}, "NAME", "at most 8"},
		{"string newline", map[string]string{"PASS": "abcd", "NAME": "a\nb"}, "NAME", "line break"},
		{"url scheme", map[string]string{"PASS": "abcd", "HOME_PAGE": "javascript:alert(1)"}, "HOME_PAGE", "not an absolute http"},
		{"url relative", map[string]string{"PASS": "abcd", "HOME_PAGE": "/x"}, "HOME_PAGE", "not an absolute http"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tp.Values(tc.values)
			if err == nil {
				t.Fatal("accepted")
			}
			if !hasField(err, tc.key) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %v, want %s: …%s", err, tc.key, tc.msg)
			}
			if p := tc.values["PASS"]; len(p) > 4 && strings.Contains(err.Error(), p) {
				t.Errorf("error shows the secret: %v", err)
			}
		})
	}
}

func TestValues_NotEditable(t *testing.T) {
	doc := strings.Replace(base, "key = \"NAME\"\n", "key = \"NAME\"\nuser_editable = false\n", 1)
	tp := mustParse(t, doc)
	if _, err := tp.Values(map[string]string{"PASS": "abcd", "NAME": "y"}); err == nil || !hasField(err, "NAME") {
		t.Fatalf("err = %v, want NAME not editable", err)
	}
	if _, err := tp.Values(map[string]string{"PASS": "abcd", "NAME": "x"}); err != nil {
		t.Fatalf("the default itself: %v", err)
	}
}

func TestValues_DefaultsFilled(t *testing.T) {
	tp := mustParse(t, base)
	got, err := tp.Values(map[string]string{"PASS": "abcd", "SLOTS": ""})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"PORT": "27000", "MODE": "a", "PASS": "abcd", "SLOTS": "5", "NAME": "x", "ON": "true",
		"HOME_PAGE": "https://example.com/"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values %v, want %v", got, want)
	}
}

func TestRender_Spec(t *testing.T) {
	tp := mustParse(t, base)
	s, err := Render(&tp, map[string]string{"PASS": "hunter", "PORT": "27100", "MODE": "b", "SLOTS": "7"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Exec != "bin/game" || s.ExecKind != ExecInRoot {
		t.Errorf("exec %q %q", s.Exec, s.ExecKind)
	}
	if want := []string{"-port", "27100", "-slots=7"}; !reflect.DeepEqual(s.Args, want) {
		t.Errorf("args %q, want %q", s.Args, want)
	}
	if want := map[string]string{"GAME_PASS": "hunter", "FEATURE": "1"}; !reflect.DeepEqual(s.Env, want) {
		t.Errorf("env %v, want %v", s.Env, want)
	}
	wantPorts := []BoundPort{{"game", "udp", 27100}, {"rcon", "tcp", 27020}}
	if !reflect.DeepEqual(s.Ports, wantPorts) {
		t.Errorf("ports %v, want %v", s.Ports, wantPorts)
	}
	if s.Console != (ConsoleSpec{Kind: ConsoleSourceRCON, Port: 27020, Password: "hunter"}) {
		t.Errorf("console %+v", s.Console)
	}
	if s.Stop != (StopSpec{Kind: StopRCON, Value: "quit", Timeout: DefaultStopTimeout}) ||
		s.Ready != (ReadySpec{Regex: "ready", Timeout: time.Minute}) {
		t.Errorf("stop %+v ready %+v", s.Stop, s.Ready)
	}
	if len(s.Sources) != 3 || s.Sources[1].HTTP == nil || s.Sources[1].When != nil {
		t.Errorf("sources %+v (want the http step, MODE is b)", s.Sources)
	}
	if got := s.Configs[0].Set["Server.Name"]; got != "x" {
		t.Errorf("config value %q", got)
	}
	if tp.ConfigFiles[0].Set["Server.Name"] != "{{NAME}}" {
		t.Error("Render changed the template")
	}
	for _, out := range []string{s.String(), fmt.Sprint(s), fmt.Sprintf("%v %+v %#v", s, s, s)} {
		if strings.Contains(out, "hunter") {
			t.Fatalf("String shows the secret: %s", out)
		}
	}
}

func TestRender_ConditionsOff(t *testing.T) {
	tp := mustParse(t, base)
	s, err := Render(&tp, map[string]string{"PASS": "abcd", "ON": "false"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Sources) != 2 || s.Sources[1].GitHubRelease == nil {
		t.Errorf("sources %+v (want no http step, MODE is a)", s.Sources)
	}
	if _, ok := s.Env["FEATURE"]; ok {
		t.Error("env_if applied with ON false")
	}
}

func TestRender_PortClash(t *testing.T) {
	doc := strings.Replace(base, `protocol = "udp"`, `protocol = "tcp"`, 1)
	tp := mustParse(t, doc)
	_, err := Render(&tp, map[string]string{"PASS": "abcd", "PORT": "27020"})
	if err == nil || !hasField(err, "port[1]") || !strings.Contains(err.Error(), "tcp/27020") {
		t.Fatalf("err = %v, want port[1] clash", err)
	}
}

func TestRender_TemplatedDownloadChecked(t *testing.T) {
	tp := builtin(t, "minecraft")
	vals := map[string]string{"JAR_URL": "https://example.com/server.jar", "JAR_SHA256": sha, "EULA": "true"}
	s, err := Render(&tp, vals)
	if err != nil {
		t.Fatal(err)
	}
	if h := s.Sources[0].HTTP; h.URL != vals["JAR_URL"] || h.SHA256 != sha {
		t.Errorf("http %+v", h)
	}
	vals["JAR_SHA256"] = "nothex"
	if _, err := Render(&tp, vals); err == nil || !hasField(err, "JAR_SHA256") {
		t.Fatalf("err = %v, want JAR_SHA256 refused", err)
	}
}

func builtin(t *testing.T, id string) Template {
	t.Helper()
	ts, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range ts {
		if tp.ID == id {
			return tp
		}
	}
	t.Fatalf("no built-in %s", id)
	return Template{}
}

// TestBuiltins_Render: each built-in renders with its defaults and the
// secrets and required values an operator must give.
func TestBuiltins_Render(t *testing.T) {
	given := map[string]map[string]string{
		"rust":      {"RCON_PASSWORD": "rconpass1", "FRAMEWORK": "carbon"},
		"valheim":   {"SERVER_PASSWORD": "secret5"},
		"soulmask":  {"ADMIN_PASSWORD": "adminpass"},
		"conan":     {"RCON_PASSWORD": "rconpass1"},
		"minecraft": {"JAR_URL": "https://example.com/server.jar", "JAR_SHA256": sha, "EULA": "true"},
		"minetest":  {},
		"worldsrv":  {"RCON_PASSWORD": "r", "DB_PASSWORD": "d"},
		"ether":     {"DB_PASSWORD": "d"},
	}
	ts, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range ts {
		t.Run(tp.ID, func(t *testing.T) {
			s, err := Render(&tp, given[tp.ID])
			if err != nil {
				t.Fatal(err)
			}
			if s.Exec == "" || len(s.Ports) == 0 {
				t.Errorf("spec %v", s)
			}
		})
	}
	rust := builtin(t, "rust")
	s, err := Render(&rust, given["rust"])
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Sources) != 2 || s.Sources[1].GitHubRelease.Repo != "CarbonCommunity/Carbon" ||
		s.Sources[1].GitHubRelease.Reapply != ReapplyAfterGameUpdate || s.Env["DOORSTOP_ENABLED"] != "1" {
		t.Errorf("rust with carbon: %v", s)
	}
	valheim := builtin(t, "valheim")
	if s, err := Render(&valheim, given["valheim"]); err != nil || s.Port("query") != 2457 || s.Stop.Value != "SIGINT" {
		t.Errorf("valheim: %v %v", s, err)
	}
}

func TestExpand(t *testing.T) {
	vals := map[string]string{"A": "1", "B_2": "{{A}}"}
	lookup := func(k string) (string, bool) { v, ok := vals[k]; return v, ok }
	for in, want := range map[string]string{
		"": "", "plain": "plain", "{{A}}": "1", "x{{A}}y{{B_2}}z": "x1y{{A}}z", "{ {A} }": "{ {A} }", "{A}": "{A}",
	} {
		got, err := expand(in, lookup)
		if err != nil || got != want {
			t.Errorf("expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"{{", "}}", "{{A", "A}}{{A}}", "{{a}}", "{{}}", "{{C}}", "{{{A}}}"} {
		if _, err := expand(in, lookup); err == nil {
			t.Errorf("expand(%q) accepted", in)
		}
	}
}
