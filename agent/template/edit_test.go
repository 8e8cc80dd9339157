package template

import (
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	cases := []struct {
		name    string
		format  Format
		in      string
		set     map[string]string
		want    string
		wantErr string
	}{
		{"properties replace keeps layout", FormatProperties, "# c\nserver-port = 1\nmotd:old\n",
			map[string]string{"server-port": "25565", "motd": "hi"}, "# c\nserver-port = 25565\nmotd:hi\n", ""},
		{"properties add", FormatProperties, "a=1", map[string]string{"b": "2"}, "a=1\nb=2\n", ""},
		{"properties empty file", FormatProperties, "", map[string]string{"eula": "true"}, "eula=true\n", ""},
		{"properties comment not a key", FormatProperties, "#a=1\n", map[string]string{"a": "2"}, "#a=1\na=2\n", ""},
		{"properties crlf kept", FormatProperties, "a=1\r\nb=2\r\n", map[string]string{"b": "3", "c": "4"}, "a=1\r\nb=3\r\nc=4\r\n", ""},
		{"line prefix", FormatLinePrefix, "x\nrcon.password \"old\"\n", map[string]string{"rcon.password ": `"new"`},
			"x\nrcon.password \"new\"\n", ""},
		{"line prefix add", FormatLinePrefix, "", map[string]string{"hostname ": "x"}, "hostname x\n", ""},
		{"ini replace in section", FormatINI, "[A]\nk=1\n[B]\nk=2\n", map[string]string{"B.k": "3"}, "[A]\nk=1\n[B]\nk=3\n", ""},
		{"ini add to section", FormatINI, "[A]\nk=1\n\n[B]\nk=2\n", map[string]string{"A.n": "5"}, "[A]\nk=1\nn=5\n\n[B]\nk=2\n", ""},
		{"ini dotted section", FormatINI, "[/Script/Engine.GameSession]\nMaxPlayers=10\n",
			map[string]string{"/Script/Engine.GameSession.MaxPlayers": "40"}, "[/Script/Engine.GameSession]\nMaxPlayers=40\n", ""},
		{"ini new section", FormatINI, "[A]\nk=1\n", map[string]string{"RconPlugin.RconEnabled": "1"},
			"[A]\nk=1\n\n[RconPlugin]\nRconEnabled=1\n", ""},
		{"ini top level", FormatINI, "top=1\n[A]\nk=1\n", map[string]string{"top": "2", "other": "3"}, "top=2\nother=3\n[A]\nk=1\n", ""},
		{"json typed", FormatJSON, `{"server": {"port": 1, "name": "a", "pvp": false}}`,
			map[string]string{"server.port": "2", "server.name": "b", "server.pvp": "true", "new.key": "v"},
			"{\n  \"new\": {\n    \"key\": \"v\"\n  },\n  \"server\": {\n    \"name\": \"b\",\n    \"port\": 2,\n    \"pvp\": true\n  }\n}\n", ""},
		{"json number refused", FormatJSON, `{"port": 1}`, map[string]string{"port": "many"}, "", "not one"},
		{"json through a value", FormatJSON, `{"a": 1}`, map[string]string{"a.b": "x"}, "", "a is not an object"},
		{"json not an object", FormatJSON, `[1]`, map[string]string{"a": "x"}, "", "json config"},
		{"json trailing data", FormatJSON, `{} {}`, map[string]string{"a": "x"}, "", "data after"},
		{"yaml keeps comments and types", FormatYAML, "# top\nserver:\n  port: 1 # the port\n  name: a\n",
			map[string]string{"server.port": "2", "server.name": "yes", "new.key": "v"},
			"# top\nserver:\n  port: 2 # the port\n  name: \"yes\"\nnew:\n  key: v\n", ""},
		{"yaml empty", FormatYAML, "", map[string]string{"a": "1"}, "a: \"1\"\n", ""},
		{"yaml int refused", FormatYAML, "port: 1\n", map[string]string{"port": "x"}, "", "not one"},
		{"yaml through a list", FormatYAML, "a: [1]\n", map[string]string{"a.b": "x"}, "", "not a mapping"},
		{"yaml not a mapping", FormatYAML, "- 1\n", map[string]string{"a": "x"}, "", "not a mapping"},
		{"xml replace keeps the rest", FormatXML, "<?xml version=\"1.0\"?>\n<!-- c -->\n<Config a=\"1\">\n  <Port>1</Port>\n  <Name/>\n</Config>\n",
			map[string]string{"Config/Port": "2", "Config/Name": "a<b"},
			"<?xml version=\"1.0\"?>\n<!-- c -->\n<Config a=\"1\">\n  <Port>2</Port>\n  <Name>a&lt;b</Name>\n</Config>\n", ""},
		{"xml add", FormatXML, "<Config><A>1</A></Config>", map[string]string{"Config/B/C": "x"},
			"<Config><A>1</A><B><C>x</C></B></Config>", ""},
		{"xml add to empty root", FormatXML, "<Config/>", map[string]string{"Config/B": "x"}, "<Config><B>x</B></Config>", ""},
		{"xml empty file", FormatXML, "", map[string]string{"Config/B": "x"}, "<Config><B>x</B></Config>\n", ""},
		{"xml element with children", FormatXML, "<C><A><B/></A></C>", map[string]string{"C/A": "x"}, "", "holds elements"},
		{"xml other root", FormatXML, "<D/>", map[string]string{"C/A": "x"}, "", "root element is not"},
		{"xml broken", FormatXML, "<C><A></C>", map[string]string{"C/A": "x"}, "", "xml config"},
		{"value with newline", FormatProperties, "", map[string]string{"a": "x\ny=1"}, "", "line break"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply(tc.format, []byte(tc.in), tc.set)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// FuzzApply: no content panics Apply; an applied edit is found again when
// applied twice (idempotent).
func FuzzApply(f *testing.F) {
	f.Add(byte(0), "[A]\nk=1\n", "A.k", "2")
	f.Add(byte(1), "a = 1\r\n#x\n", "a", "2")
	f.Add(byte(2), "p x\n", "p ", "y")
	f.Add(byte(3), `{"a":{"b":1}}`, "a.b", "3")
	f.Add(byte(4), "a:\n  b: 1 # c\n", "a.b", "3")
	f.Add(byte(5), "<C><A>1</A></C>", "C/A", "2")
	formats := []Format{FormatINI, FormatProperties, FormatLinePrefix, FormatJSON, FormatYAML, FormatXML}
	f.Fuzz(func(t *testing.T, which byte, content, key, value string) {
		format := formats[int(which)%len(formats)]
		set := map[string]string{key: value}
		once, err := Apply(format, []byte(content), set)
		if err != nil {
			return
		}
		twice, err := Apply(format, once, set)
		if err != nil {
			t.Fatalf("%s: applying again failed: %v", format, err)
		}
		if string(once) != string(twice) {
			t.Fatalf("%s: not idempotent:\n%q\n%q", format, once, twice)
		}
	})
}
