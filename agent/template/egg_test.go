package template

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readEgg(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "eggs", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func unmappedFields(us []Unmapped) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.Field)
	}
	return out
}

func TestImportEgg_Pterodactyl(t *testing.T) {
	tp, un, err := ImportEgg(readEgg(t, "ptdl-steam.json"))
	if err != nil {
		t.Fatalf("%v\nunmapped: %v", err, un)
	}
	if tp.ID != "egg-test-steam-game" || tp.Game != "generic" || tp.Name != "Test Steam Game" {
		t.Errorf("meta %q %q %q", tp.ID, tp.Game, tp.Name)
	}
	if tp.Run.Program != "wine" || !reflect.DeepEqual(tp.Run.Args, []string{"Game/Server.exe", "-Port={{SERVER_PORT}}",
		"-QueryPort={{QUERY_PORT}}", "-ServerName={{SRV_NAME}}", "-Password={{SRV_PW}}", "-log"}) {
		t.Errorf("run %q %q", tp.Run.Program, tp.Run.Args)
	}
	if tp.Run.Stop.Kind != StopSignal || tp.Run.Stop.Value != "SIGINT" || tp.Run.Ready.Regex != "Server is ready" {
		t.Errorf("stop %+v ready %q", tp.Run.Stop, tp.Run.Ready.Regex)
	}
	if len(tp.Sources) != 1 || tp.Sources[0].SteamCMD.AppID != 443030 || tp.Sources[0].SteamCMD.Platform != PlatformWindows {
		t.Errorf("sources %+v", tp.Sources)
	}
	v := tp.variable("QUERY_PORT")
	if v == nil || v.Type != TypePort || *v.Min != 1024 || v.Editable() {
		t.Errorf("QUERY_PORT %+v", v)
	}
	if v := tp.variable("SRV_PW"); v == nil || v.Type != TypeSecret || v.Pattern != "[a-z0-9]{4,16}" || v.Required {
		t.Errorf("SRV_PW %+v", v)
	}
	if v := tp.variable("SRV_NAME"); v == nil || v.MaxLength != 40 || !v.Required {
		t.Errorf("SRV_NAME %+v", v)
	}
	if got := tp.ConfigFiles[0].Set; !reflect.DeepEqual(got, map[string]string{"Rcon.Port": "{{RCON_PORT}}"}) {
		t.Errorf("config set %v", got)
	}
	want := []string{"docker_images", "features", "variables[7]", "variables[8].rules", "variables[6].rules",
		"scripts.installation.script", `config.files."Game/Saved/Game.ini".find."Rcon.Host"`}
	got := unmappedFields(un)
	for _, w := range want {
		if !strings.Contains(strings.Join(got, "\n"), w) {
			t.Errorf("unmapped lacks %s: %v", w, un)
		}
	}
	if s, err := Render(&tp, map[string]string{"SRV_PW": "abcd"}); err != nil || s.Port("server_port") != 7777 || s.Port("query_port") != 27015 {
		t.Errorf("render: %v %v", s, err)
	}
}

func TestImportEgg_Pelican(t *testing.T) {
	tp, un, err := ImportEgg(readEgg(t, "pelican-java.json"))
	if err != nil {
		t.Fatalf("%v\nunmapped: %v", err, un)
	}
	if tp.Run.Program != "java" || tp.Run.Args[1] != "-Xmx{{SERVER_MEMORY}}M" || tp.Run.Stop.Value != "stop" {
		t.Errorf("run %+v", tp.Run)
	}
	if tp.Run.Ready.Regex != `\)! For help, type |Done \(` {
		t.Errorf("ready %q", tp.Run.Ready.Regex)
	}
	if v := tp.variable("SERVER_MEMORY"); v == nil || v.Type != TypeInt {
		t.Errorf("SERVER_MEMORY %+v", v)
	}
	if v := tp.variable("MAX_PLAYERS"); v == nil || v.Type != TypeInt || *v.Max != 500 || v.Default != "20" {
		t.Errorf("MAX_PLAYERS %+v", v)
	}
	if v := tp.variable("API_TOKEN"); v == nil || v.Type != TypeSecret || v.Visible() {
		t.Errorf("API_TOKEN %+v", v)
	}
	if len(tp.Ports) != 1 || tp.Ports[0] != (Port{Name: "server_port", Protocol: ProtocolUDP, Variable: "SERVER_PORT"}) {
		t.Errorf("ports %+v", tp.Ports)
	}
	got := strings.Join(unmappedFields(un), "\n")
	for _, w := range []string{"mystery", "startup_commands.Aikar", `config.files."eula.txt"`,
		`config.files."server.properties".find."weird"`, `config.files."server.properties".find." spaced"`, "variables"} {
		if !strings.Contains(got, w) {
			t.Errorf("unmapped lacks %s: %v", w, un)
		}
	}
}

// TestImportEgg_Refused: what cannot become a template is an error that
// says why; nothing is half-imported.
func TestImportEgg_Refused(t *testing.T) {
	good := string(readEgg(t, "pelican-java.json"))
	cases := []struct{ name, old, new, msg string }{
		{"not json", `{`, `[`, "parse egg"},
		{"shell pipe", `nogui"`, `nogui | tee log"`, "shell syntax"},
		{"shell substitution", `nogui"`, `$(id)"`, "shell syntax"},
		{"unknown reference", `nogui"`, `{{NOPE}}"`, "NOPE"},
		{"unknown server reference", `nogui"`, `{{server.build.default.ip}}"`, "server.build.default.ip"},
		{"unterminated quote", `nogui"`, `'nogui"`, "unterminated"},
		{"no startup", `"Default": "java -Xms128M -Xmx{{SERVER_MEMORY}}M -jar {{SERVER_JARFILE}} nogui", "Aikar": "java -XX:+UseG1GC -jar server.jar"`, ``, "no startup"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(good, tc.old) {
				t.Fatalf("egg lacks %q", tc.old)
			}
			tp, _, err := ImportEgg([]byte(strings.Replace(good, tc.old, tc.new, 1)))
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %q", err, tc.msg)
			}
			if tp.ID != "" {
				t.Errorf("half a template returned: %+v", tp)
			}
		})
	}
}

// FuzzImportEgg: no egg panics the importer; what it returns validates.
func FuzzImportEgg(f *testing.F) {
	f.Add(readEgg(f, "ptdl-steam.json"))
	f.Add(readEgg(f, "pelican-java.json"))
	f.Add([]byte(`{"name":"x","startup":"./a"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tp, _, err := ImportEgg(data)
		if err != nil {
			return
		}
		if err := tp.Validate(); err != nil {
			t.Fatalf("imported but does not validate: %v", err)
		}
	})
}
