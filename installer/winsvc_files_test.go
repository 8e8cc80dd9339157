package installer

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// winInstallFiles runs the file part of a Windows install into root and
// returns whether the config validated and what it printed.
func winInstallFiles(t *testing.T, o Options) (bool, string) {
	t.Helper()
	var out bytes.Buffer
	o.Out = &out
	s, err := newWinSession(o, "install", windowsLayout(""))
	if err != nil {
		t.Fatal(err)
	}
	valid, err := s.installFiles()
	if err != nil {
		t.Fatalf("install files: %v\n%s", err, out.String())
	}
	return valid, out.String()
}

// winTree lists every path under root with "/" for directories.
func winTree(t *testing.T, root string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			rel += "/"
		}
		got = append(got, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	return got
}

func winLines(s ...string) string { return strings.Join(s, "\n") + "\n" }

func TestWindowsInstallFiles_IntoRoot(t *testing.T) {
	root := t.TempDir()
	valid, out := winInstallFiles(t, Options{Root: root})
	if valid {
		t.Fatal("the template validated (its license_id is empty)")
	}
	wantTree := []string{"ProgramData/", "ProgramData/Corrosion/", "ProgramData/Corrosion/agent.toml",
		"ProgramData/Corrosion/data/", "ProgramData/Corrosion/servers/"}
	if got := winTree(t, root); strings.Join(got, " ") != strings.Join(wantTree, " ") {
		t.Fatalf("files %q, want %q", got, wantTree)
	}
	b, err := os.ReadFile(filepath.Join(root, "ProgramData", "Corrosion", "agent.toml"))
	if err != nil || string(b) != windowsConfig(ConfigTemplate, windowsLayout("")) {
		t.Fatalf("config is not the Windows template (%v)", err)
	}
	head := winLines("root "+root+": every path below lives under it; the service manager is not touched",
		`mkdir C:\ProgramData\Corrosion (Administrators and SYSTEM only)`,
		`mkdir C:\ProgramData\Corrosion\data`,
		`mkdir C:\ProgramData\Corrosion\servers`,
		`write C:\ProgramData\Corrosion\agent.toml`,
		`config C:\ProgramData\Corrosion\agent.toml does not validate (the service starts only once it does):`)
	if !strings.HasPrefix(out, head) || !strings.Contains(out, "agent.license_id") {
		t.Fatalf("output\n%s\nwant it to start with\n%s", out, head)
	}
}

// A second install changes nothing: an edited config is kept, and once it
// validates the install says so (the service would be started).
func TestWindowsInstallFiles_SecondRunChangesNothing(t *testing.T) {
	root := t.TempDir()
	winInstallFiles(t, Options{Root: root})
	cfg := filepath.Join(root, "ProgramData", "Corrosion", "agent.toml")
	b, _ := os.ReadFile(cfg)
	edited := strings.Replace(string(b), `license_id = ""`, `license_id = "lic-1"`, 1)
	if err := os.WriteFile(cfg, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	before := winTree(t, root)
	valid, out := winInstallFiles(t, Options{Root: root})
	want := winLines("root "+root+": every path below lives under it; the service manager is not touched",
		`ok   C:\ProgramData\Corrosion`,
		`ok   C:\ProgramData\Corrosion\data`,
		`ok   C:\ProgramData\Corrosion\servers`,
		`skip C:\ProgramData\Corrosion\agent.toml (exists; never overwritten)`,
		`ok   config C:\ProgramData\Corrosion\agent.toml validates`)
	if !valid || out != want {
		t.Fatalf("valid %v, output\n%s\nwant\n%s", valid, out, want)
	}
	if after, _ := os.ReadFile(cfg); string(after) != edited {
		t.Fatal("the edited config was overwritten")
	}
	if got := winTree(t, root); strings.Join(got, " ") != strings.Join(before, " ") {
		t.Fatalf("files changed: %q, were %q", got, before)
	}
}

func TestWindowsInstallFiles_DryRunChangesNothing(t *testing.T) {
	root := t.TempDir()
	valid, out := winInstallFiles(t, Options{Root: root, DryRun: true})
	want := winLines("root "+root+": every path below lives under it; the service manager is not touched",
		"dry run: nothing is changed",
		`would mkdir C:\ProgramData\Corrosion (Administrators and SYSTEM only)`,
		`would mkdir C:\ProgramData\Corrosion\data`,
		`would mkdir C:\ProgramData\Corrosion\servers`,
		`would write C:\ProgramData\Corrosion\agent.toml`,
		`config C:\ProgramData\Corrosion\agent.toml: not written in a dry run; the service would not be started`)
	if valid || out != want {
		t.Fatalf("valid %v, output\n%s\nwant\n%s", valid, out, want)
	}
	if got := winTree(t, root); len(got) != 0 {
		t.Fatalf("a dry run wrote %q", got)
	}
}

func TestWindowsInstallFiles_CustomConfigPath(t *testing.T) {
	root := t.TempDir()
	_, out := winInstallFiles(t, Options{Root: root, ConfigPath: `D:\corrosion\agent.toml`})
	if _, err := os.Stat(filepath.Join(root, "corrosion", "agent.toml")); err != nil {
		t.Fatalf("config not written at the custom path: %v\n%s", err, out)
	}
}

func TestWindowsSession_BadOptions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]Options{
		"relative config":  {Root: t.TempDir(), ConfigPath: `agent.toml`},
		"unix config path": {Root: t.TempDir(), ConfigPath: `/etc/corrosion/agent.toml`},
		"root is a file":   {Root: file},
		"root is missing":  {Root: filepath.Join(t.TempDir(), "nope")},
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := newWinSession(o, "install", windowsLayout("")); err == nil {
				t.Fatalf("%+v accepted", o)
			}
		})
	}
}

func TestWindowsInstallFiles_DataPathIsAFile(t *testing.T) {
	root := t.TempDir()
	base := filepath.Join(root, "ProgramData", "Corrosion")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "data"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := newWinSession(Options{Root: root}, "install", windowsLayout(""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.installFiles(); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("install over a file named data: %v", err)
	}
}

func TestWindowsUninstall_KeepsFiles(t *testing.T) {
	var out bytes.Buffer
	s, err := newWinSession(Options{Root: t.TempDir(), Out: &out}, "uninstall", windowsLayout(""))
	if err != nil {
		t.Fatal(err)
	}
	s.keepFiles()
	if !strings.Contains(out.String(), `keep C:\ProgramData\Corrosion\agent.toml (config) and C:\ProgramData\Corrosion\data, C:\ProgramData\Corrosion\servers`) {
		t.Fatalf("output %s", out.String())
	}
}
