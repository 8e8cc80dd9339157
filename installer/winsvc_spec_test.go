package installer

import (
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/config"
)

func TestWindowsServiceSpec(t *testing.T) {
	l := windowsLayout("", "")
	spec := windowsServiceSpec(`C:\Program Files\Corrosion\corrosion-agent.exe`, l.Config, winStartDelayed)
	if spec.Name != "corrosion-agent" || spec.EventSource != "corrosion-agent" || spec.DisplayName == "" ||
		spec.Description == "" {
		t.Fatalf("names: %+v", spec)
	}
	want := `"C:\Program Files\Corrosion\corrosion-agent.exe" run --config C:\ProgramData\Corrosion\agent.toml`
	if got := spec.CommandLine(); got != want {
		t.Fatalf("command line\n got %s\nwant %s", got, want)
	}
	if got := spec.Recovery.String(); got != "restart after 5s, 10s, 30s; failure count reset after 24h0m0s" {
		t.Fatalf("recovery %q", got)
	}
	if spec.Preshutdown != 2*time.Minute {
		t.Fatalf("preshutdown timeout %v, want 2m (the unit's TimeoutStopSec)", spec.Preshutdown)
	}
	if spec.Start.String() != "automatic (delayed start)" ||
		windowsServiceSpec("a", "b", winStartManual).Start.String() != "manual (the config does not validate yet)" {
		t.Fatalf("start types: %s", spec.Start)
	}
	if secondsDuration(86400) != 24*time.Hour {
		t.Fatalf("86400 s is %s", secondsDuration(86400))
	}
}

func TestWindowsLayout(t *testing.T) {
	want := winLayout{Binary: `C:\Program Files\Corrosion\corrosion-agent.exe`, Base: `C:\ProgramData\Corrosion`,
		Config: `C:\ProgramData\Corrosion\agent.toml`, EnvFile: `C:\ProgramData\Corrosion\agent.env`,
		Data: `C:\ProgramData\Corrosion\data`, Servers: `C:\ProgramData\Corrosion\servers`}
	for _, dirs := range [][2]string{{"", ""}, {`C:\ProgramData`, `C:\Program Files`},
		{`C:\ProgramData\`, `C:\Program Files\`}} {
		if l := windowsLayout(dirs[0], dirs[1]); l != want {
			t.Errorf("%q: %+v", dirs, l)
		}
	}
	l := windowsLayout(`D:\Data`, `E:\Apps`)
	if l.Data != `D:\Data\Corrosion\data` || l.Binary != `E:\Apps\Corrosion\corrosion-agent.exe` {
		t.Errorf("D:/E: layout %+v", l)
	}
}

func TestEscapeArg(t *testing.T) {
	// Expected values are syscall.EscapeArg's (the rules the service
	// manager package applies).
	cases := map[string]string{
		"":                     `""`,
		"run":                  `run`,
		`C:\x\agent.toml`:      `C:\x\agent.toml`,
		`C:\Program Files\a`:   `"C:\Program Files\a"`,
		`a"b`:                  `a\"b`,
		`a\"b`:                 `a\\\"b`,
		`dir with space\`:      `"dir with space\\"`,
		`dir with space\\`:     `"dir with space\\\\"`,
		"tab\there":            "\"tab\there\"",
		`say "hi" there`:       `"say \"hi\" there"`,
		`\\server\share\a b`:   `"\\server\share\a b"`,
		`trailing\`:            `trailing\`,
		`q" and space \"x\\`:   `"q\" and space \\\"x\\\\"`,
		`no\special\chars\\`:   `no\special\chars\\`,
		`"`:                    `\"`,
		` `:                    `" "`,
		`C:\ProgramData\C\a b`: `"C:\ProgramData\C\a b"`,
	}
	for in, want := range cases {
		if got := escapeArg(in); got != want {
			t.Errorf("escapeArg(%q) = %s, want %s", in, got, want)
		}
		if got := splitCommandLine(escapeArg(in)); len(got) != 1 || got[0] != in {
			t.Errorf("%q escaped as %s splits back to %q", in, escapeArg(in), got)
		}
	}
}

// splitCommandLine splits a command line as the Microsoft C runtime and
// CommandLineToArgvW do for arguments after the program name: 2n
// backslashes and a quote give n backslashes and toggle quoting, 2n+1 give
// n and a literal quote; other backslashes are literal.
func splitCommandLine(s string) []string {
	var args []string
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
				} else {
					quoted = !quoted
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
				i--
			}
			inArg = true
		case c == '"':
			quoted = !quoted
			inArg = true
		case (c == ' ' || c == '\t') && !quoted:
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args
}

func FuzzComposeCommandLine(f *testing.F) {
	for _, s := range []string{"", `a b`, `a"b`, `x\`, `x\\"`, "\t"} {
		f.Add(s, "run")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.ContainsRune(a+b, 0) {
			return // no NUL in a Windows command line
		}
		got := splitCommandLine(composeCommandLine([]string{a, b}))
		if len(got) != 2 || got[0] != a || got[1] != b {
			t.Fatalf("%q %q composed as %s split back to %q", a, b, composeCommandLine([]string{a, b}), got)
		}
	})
}

// The Windows config is the Linux template with Windows paths: it parses,
// keeps the agent's state under ProgramData\Corrosion\data, names no Linux
// path, and fails validation only on the unset license, as on Linux.
func TestWindowsConfig(t *testing.T) {
	l := windowsLayout("", "")
	out := windowsConfig(ConfigTemplate, l)
	for _, unix := range []string{"/etc/corrosion", "/var/lib/corrosion-agent", "/srv/corrosion", "sudo "} {
		if strings.Contains(out, unix) {
			t.Errorf("Windows config mentions %q", unix)
		}
	}
	if !strings.Contains(out, `state_dir = 'C:\ProgramData\Corrosion\data'`) {
		t.Errorf("state_dir not mapped:\n%s", out)
	}
	_, err := config.Parse([]byte(out), func(string) (string, bool) { return "", false })
	if err == nil || !strings.Contains(err.Error(), "agent.license_id") {
		t.Fatalf("template validates with %v, want the license_id problem", err)
	}
	set := strings.Replace(out, `license_id = ""`, `license_id = "lic-1"`, 1)
	cfg, err := config.Parse([]byte(set), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatalf("template with a license: %v", err)
	}
	if cfg.Agent.StateDir != l.Data {
		t.Fatalf("state_dir %q, want %q", cfg.Agent.StateDir, l.Data)
	}
}

func TestWindowsConfig_MapsCommentedPaths(t *testing.T) {
	in := "# root = \"/srv/corrosion/rust-main\"\n# see /etc/corrosion/agent.toml\nstate_dir = \"/var/lib/corrosion-agent\"\n"
	out := windowsConfig(in, windowsLayout(`D:\PD`, ""))
	for _, want := range []string{`# root = 'D:\PD\Corrosion\servers\rust-main'`,
		`# see D:\PD\Corrosion\agent.toml`, `state_dir = 'D:\PD\Corrosion\data'`} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

func TestIsWindowsAbs(t *testing.T) {
	for p, want := range map[string]bool{`C:\a`: true, `c:/a`: true, `\\srv\share\x`: true, `C:a`: false,
		`a\b`: false, `/etc/x`: false, `\\`: false, "": false, `1:\x`: false} {
		if got := isWindowsAbs(p); got != want {
			t.Errorf("isWindowsAbs(%q) = %v", p, got)
		}
	}
}
