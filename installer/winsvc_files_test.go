package installer

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// winInstallFiles runs the file part of a Windows install into root (the
// binary: a file of its own unless o says) and returns what it did and
// printed.
func winInstallFiles(t *testing.T, o Options) (filesResult, string) {
	t.Helper()
	var out bytes.Buffer
	o.Out = &out
	o = withValidator(o)
	if o.Binary == "" {
		o.Binary = fakeAgentBinary(t, "agent v1")
	}
	s, err := newWinSession(o, "install", windowsLayout("", ""))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.installFiles()
	if err != nil {
		t.Fatalf("install files: %v\n%s", err, out.String())
	}
	return res, out.String()
}

// fakeAgentBinary is a stand-in for corrosion-agent.exe with the given
// bytes (the installer copies it, never runs it).
func fakeAgentBinary(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "corrosion-agent.exe")
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
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

const rootBanner = ": every path below lives under it; the service manager is not touched"

func TestWindowsInstallFiles_IntoRoot(t *testing.T) {
	root := t.TempDir()
	bin := fakeAgentBinary(t, "agent v1")
	res, out := winInstallFiles(t, Options{Root: root, Binary: bin})
	if res.Valid || !res.BinaryChanged {
		t.Fatalf("result %+v: want an invalid config (its license_id is empty) and a new binary", res)
	}
	wantTree := []string{"Program Files/", "Program Files/Corrosion/", "Program Files/Corrosion/corrosion-agent.exe",
		"ProgramData/", "ProgramData/Corrosion/", "ProgramData/Corrosion/agent.toml",
		"ProgramData/Corrosion/data/", "ProgramData/Corrosion/servers/"}
	if got := winTree(t, root); strings.Join(got, " ") != strings.Join(wantTree, " ") {
		t.Fatalf("files %q, want %q", got, wantTree)
	}
	b, err := os.ReadFile(filepath.Join(root, "ProgramData", "Corrosion", "agent.toml"))
	if err != nil || string(b) != windowsConfig(ConfigTemplate, windowsLayout("", "")) {
		t.Fatalf("config is not the Windows template (%v)", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "Program Files", "Corrosion", "corrosion-agent.exe")); string(b) != "agent v1" {
		t.Fatalf("binary holds %q", b)
	}
	head := winLines("root "+root+rootBanner,
		`install `+bin+` as C:\Program Files\Corrosion\corrosion-agent.exe`,
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
// validates (its ${NATS_TOKEN} from agent.env) the install says so.
func TestWindowsInstallFiles_SecondRunChangesNothing(t *testing.T) {
	root := t.TempDir()
	bin := fakeAgentBinary(t, "agent v1")
	winInstallFiles(t, Options{Root: root, Binary: bin})
	base := filepath.Join(root, "ProgramData", "Corrosion")
	cfg := filepath.Join(base, "agent.toml")
	b, _ := os.ReadFile(cfg)
	edited := strings.Replace(string(b), `license_id = ""`, "license_id = \"lic-1\"\nnats_token = \"${NATS_TOKEN}\"", 1)
	if err := os.WriteFile(cfg, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "agent.env"), []byte("NATS_TOKEN=s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := winTree(t, root)
	res, out := winInstallFiles(t, Options{Root: root, Binary: bin})
	want := winLines("root "+root+rootBanner,
		`ok   C:\Program Files\Corrosion\corrosion-agent.exe (the same binary)`,
		`ok   C:\ProgramData\Corrosion`,
		`ok   C:\ProgramData\Corrosion\data`,
		`ok   C:\ProgramData\Corrosion\servers`,
		`skip C:\ProgramData\Corrosion\agent.toml (exists; never overwritten)`,
		`ok   config C:\ProgramData\Corrosion\agent.toml validates`)
	if !res.Valid || res.BinaryChanged || out != want {
		t.Fatalf("result %+v, output\n%s\nwant\n%s", res, out, want)
	}
	if after, _ := os.ReadFile(cfg); string(after) != edited {
		t.Fatal("the edited config was overwritten")
	}
	if got := winTree(t, root); strings.Join(got, " ") != strings.Join(before, " ") {
		t.Fatalf("files changed: %q, were %q", got, before)
	}
}

// The binary a Windows install copies is chosen by the same rule as on
// Linux (sourceBinary): a link is resolved and the path made absolute, so
// the message names the file actually copied.
func TestWindowsInstallFiles_BinaryLinkResolved(t *testing.T) {
	bin := fakeAgentBinary(t, "agent v1")
	link := filepath.Join(t.TempDir(), "agent-link.exe")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	_, out := winInstallFiles(t, Options{Root: t.TempDir(), Binary: link})
	if want := `install ` + bin + ` as C:\Program Files\Corrosion\corrosion-agent.exe`; !strings.Contains(out, want) {
		t.Fatalf("output\n%s\nwant a line %q", out, want)
	}
}

// An upgrade replaces the binary and keeps the old one aside (a running
// .exe can be renamed, not overwritten, on Windows).
func TestWindowsInstallFiles_UpgradeReplacesTheBinary(t *testing.T) {
	root := t.TempDir()
	winInstallFiles(t, Options{Root: root, Binary: fakeAgentBinary(t, "agent v1")})
	v2 := fakeAgentBinary(t, "agent v2")
	res, out := winInstallFiles(t, Options{Root: root, Binary: v2})
	if !res.BinaryChanged || !strings.Contains(out, "install "+v2+` as C:\Program Files\Corrosion\corrosion-agent.exe`) {
		t.Fatalf("result %+v, output\n%s", res, out)
	}
	dir := filepath.Join(root, "Program Files", "Corrosion")
	for name, want := range map[string]string{"corrosion-agent.exe": "agent v2", "corrosion-agent.exe.old": "agent v1"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", name, b, err, want)
		}
	}
	winInstallFiles(t, Options{Root: root, Binary: fakeAgentBinary(t, "agent v3")})
	if b, _ := os.ReadFile(filepath.Join(dir, "corrosion-agent.exe.old")); string(b) != "agent v2" {
		t.Fatalf("after a second upgrade the old binary is %q", b)
	}
}

func TestWindowsInstallFiles_DryRunChangesNothing(t *testing.T) {
	root := t.TempDir()
	bin := fakeAgentBinary(t, "agent v1")
	res, out := winInstallFiles(t, Options{Root: root, Binary: bin, DryRun: true})
	want := winLines("root "+root+rootBanner,
		"dry run: nothing is changed",
		`would install `+bin+` as C:\Program Files\Corrosion\corrosion-agent.exe`,
		`would mkdir C:\ProgramData\Corrosion (Administrators and SYSTEM only)`,
		`would mkdir C:\ProgramData\Corrosion\data`,
		`would mkdir C:\ProgramData\Corrosion\servers`,
		`would write C:\ProgramData\Corrosion\agent.toml`,
		`config C:\ProgramData\Corrosion\agent.toml: not written in a dry run; the service would not be started`)
	if res.Valid || out != want {
		t.Fatalf("result %+v, output\n%s\nwant\n%s", res, out, want)
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
			if _, err := newWinSession(o, "install", windowsLayout("", "")); err == nil {
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
	s, err := newWinSession(Options{Root: root}, "install", windowsLayout("", ""))
	if err != nil {
		t.Fatal(err)
	}
	s.o.Binary = fakeAgentBinary(t, "agent")
	if _, err := s.installFiles(); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("install over a file named data: %v", err)
	}
}

func TestWindowsUninstall_KeepsFiles(t *testing.T) {
	var out bytes.Buffer
	s, err := newWinSession(Options{Root: t.TempDir(), Out: &out}, "uninstall", windowsLayout("", ""))
	if err != nil {
		t.Fatal(err)
	}
	s.keepFiles()
	want := `keep C:\ProgramData\Corrosion\agent.toml (config), C:\ProgramData\Corrosion\data, ` +
		`C:\ProgramData\Corrosion\servers (state and game servers) and C:\Program Files\Corrosion\corrosion-agent.exe`
	if !strings.Contains(out.String(), want) {
		t.Fatalf("output %s", out.String())
	}
}

// A binary path that cannot be read (here a directory) is an error, as on
// Linux; it used to be moved aside to .old and replaced.
func TestWindowsInstallFiles_UnreadableBinaryPath(t *testing.T) {
	root := t.TempDir()
	dst := filepath.Join(root, "Program Files", "Corrosion", "corrosion-agent.exe")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := newWinSession(Options{Root: root, Out: &bytes.Buffer{}}, "install", windowsLayout("", ""))
	if err != nil {
		t.Fatal(err)
	}
	s.o.Binary = fakeAgentBinary(t, "agent")
	if _, err := s.installFiles(); err == nil || !strings.Contains(err.Error(), `read C:\Program Files\Corrosion\corrosion-agent.exe`) {
		t.Fatalf("install over a directory at the binary path: %v", err)
	}
	if fi, err := os.Stat(dst); err != nil || !fi.IsDir() {
		t.Fatalf("the directory at the binary path was replaced: %v, %v", fi, err)
	}
}
