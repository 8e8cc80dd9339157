package steam

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A real-format manifest: every field the runner needs.
func TestParseManifest_RealFormat(t *testing.T) {
	m, err := ParseManifest(readTestdata(t, "appmanifest_258550.acf"))
	if err != nil {
		t.Fatal(err)
	}
	want := Manifest{AppID: "258550", Name: "Rust Dedicated Server", InstallDir: "rust_dedicated",
		BuildID: "16391457", TargetBuildID: "16391457", StateFlags: 4,
		BytesToDownload: 1874176, BytesDownloaded: 1874176, BytesToStage: 8969373611, BytesStaged: 8969373611}
	if m != want {
		t.Fatalf("got %+v\nwant %+v", m, want)
	}
	if m.HalfFinished() {
		t.Error("a complete install reads as half-finished")
	}
	half, err := ParseManifest(readTestdata(t, "appmanifest_258550_half.acf"))
	if err != nil {
		t.Fatal(err)
	}
	if !half.HalfFinished() || half.BuildID != "16391457" || half.TargetBuildID != "16412345" {
		t.Errorf("half-finished manifest: %+v, HalfFinished %v", half, half.HalfFinished())
	}
}

// Each sign of an unfinished download on its own makes HalfFinished.
func TestManifest_HalfFinished(t *testing.T) {
	ok := Manifest{StateFlags: StateFullyInstalled, BytesToDownload: 10, BytesDownloaded: 10, BytesToStage: 20, BytesStaged: 20}
	for name, m := range map[string]Manifest{
		"not fully installed": {StateFlags: 0, BytesToDownload: 10, BytesDownloaded: 10, BytesToStage: 20, BytesStaged: 20},
		"update started":      {StateFlags: StateFullyInstalled | StateUpdateStarted, BytesToDownload: 10, BytesDownloaded: 10, BytesToStage: 20, BytesStaged: 20},
		"files missing":       {StateFlags: StateFullyInstalled | StateFilesMissing, BytesToDownload: 10, BytesDownloaded: 10, BytesToStage: 20, BytesStaged: 20},
		"download short":      {StateFlags: StateFullyInstalled, BytesToDownload: 10, BytesDownloaded: 9, BytesToStage: 20, BytesStaged: 20},
		"staging short":       {StateFlags: StateFullyInstalled, BytesToDownload: 10, BytesDownloaded: 10, BytesToStage: 20, BytesStaged: 19},
	} {
		if !m.HalfFinished() {
			t.Errorf("%s: not half-finished", name)
		}
	}
	if ok.HalfFinished() {
		t.Error("complete manifest is half-finished")
	}
}

// Bad input: a clear error wrapping ErrVDF, never a panic.
func TestParseVDF_BadInput(t *testing.T) {
	deep := strings.Repeat(`"a" { `, MaxVDFDepth+1) + strings.Repeat("} ", MaxVDFDepth+1)
	for name, tc := range map[string]struct{ in, want string }{
		"unclosed brace":      {`"AppState" { "appid" "1"`, "a } is missing"},
		"extra close brace":   {`"AppState" { } }`, `'}' where a key was expected`},
		"unterminated string": {"\"AppState\" {\n\"appid\" \"1", "never closed"},
		"trailing backslash":  {`"a" "b\`, "never closed"},
		"key without value":   {`"AppState" { "appid" }`, `key "appid" has no value`},
		"key at end":          {`"appid"`, `key "appid" has no value`},
		"nul":                 {"\"a\" \"b\x00\"", "NUL"},
		"not utf-8":           {"\"a\" \"\xff\xfe\"", "not UTF-8"},
		"too deep":            {deep, "nested deeper"},
		"too large":           {`"a" "` + strings.Repeat("x", MaxVDFBytes) + `"`, "more than"},
		"value is a brace":    {`{ }`, `'{' where a key was expected`},
	} {
		_, err := ParseVDF([]byte(tc.in))
		if err == nil || !errors.Is(err, ErrVDF) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrVDF with %q", name, err, tc.want)
		}
	}
}

// Quoted and bare tokens, escapes, comments, case-insensitive lookups.
func TestParseVDF_Syntax(t *testing.T) {
	n, err := ParseVDF([]byte("// a comment\n\"Root\"\n{\n\tbare value // trailing\n\t\"esc\" \"a\\\"b\\\\c\\nd\\te\"\n\t\"Sub\" { \"k\" \"v\" }\n\t\"k2\" \"first\"\n\t\"K2\" \"second\"\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"root/bare": "value", "ROOT/esc": "a\"b\\c\nd\te", "root/sub/K": "v", "root/k2": "first",
	} {
		if got := n.String(strings.Split(path, "/")...); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if n.Get("root", "missing", "deeper") != nil || n.String("root", "sub") != "" {
		t.Error("a missing path or an object read as a string")
	}
}

// Manifest rules on top of the syntax.
func TestParseManifest_Refuses(t *testing.T) {
	for name, in := range map[string]string{
		"no AppState":       `"Other" { }`,
		"no appid":          `"AppState" { "StateFlags" "4" }`,
		"no StateFlags":     `"AppState" { "appid" "1" }`,
		"flags not numeric": `"AppState" { "appid" "1" "StateFlags" "four" }`,
		"bytes negative":    `"AppState" { "appid" "1" "StateFlags" "4" "BytesToDownload" "-1" }`,
		"buildid text":      `"AppState" { "appid" "1" "StateFlags" "4" "buildid" "latest" }`,
		"flags an object":   `"AppState" { "appid" "1" "StateFlags" { } }`,
	} {
		if _, err := ParseManifest([]byte(in)); err == nil || !errors.Is(err, ErrVDF) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// app_info_print: the dump is found amid steamcmd's lines; every branch,
// a beta's password flag.
func TestParseAppInfo_RealOutput(t *testing.T) {
	ai, err := ParseAppInfo(readTestdata(t, "app_info_print_258550.txt"), "258550")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Branch{"public": {BuildID: "16412345"}, "staging": {BuildID: "16420001"}, "aux01": {BuildID: "16400000", PwdRequired: true}}
	if len(ai.Branches) != len(want) {
		t.Fatalf("branches %v", ai.Branches)
	}
	for k, v := range want {
		if ai.Branches[k] != v {
			t.Errorf("branch %s = %+v, want %+v", k, ai.Branches[k], v)
		}
	}
	for name, tc := range map[string]struct{ out, app, want string }{
		"other app":   {string(readTestdata(t, "app_info_print_258550.txt")), "896660", "no information"},
		"bad app id":  {"", "12a", "not a positive decimal"},
		"no branches": {"\"7\"\n{\n\"common\" { }\n}\n", "7", "no depots.branches"},
		"cut short":   {"\"7\"\n{\n\"depots\" {\n", "7", "missing"},
	} {
		if _, err := ParseAppInfo([]byte(tc.out), tc.app); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// Installed: the manifest under root; none is ErrNotInstalled; another
// app's is refused.
func TestInstalled(t *testing.T) {
	root := t.TempDir()
	if _, err := Installed(root, "258550"); !errors.Is(err, ErrNotInstalled) || strings.Contains(err.Error(), root) {
		t.Fatalf("no manifest (an error naming no host path): %v", err)
	}
	if err := os.MkdirAll(filepath.Join(root, "steamapps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ManifestPath(root, "258550"), readTestdata(t, "appmanifest_258550_half.acf"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Installed(root, "258550")
	if err != nil || m.BuildID != "16391457" || !m.HalfFinished() {
		t.Fatalf("half manifest: %+v, %v", m, err)
	}
	if err := os.WriteFile(ManifestPath(root, "896660"), readTestdata(t, "appmanifest_258550.acf"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Installed(root, "896660"); err == nil || !strings.Contains(err.Error(), `for app "258550"`) || strings.Contains(err.Error(), root) {
		t.Errorf("another app's manifest: %v", err)
	}
	if _, err := Installed(root, "../x"); err == nil {
		t.Error("a path as app id was accepted")
	}
}

// FuzzParseVDF: any input gives a root object or an error wrapping
// ErrVDF, never a panic or a hang; the manifest and app-info readers on
// top must not panic either.
func FuzzParseVDF(f *testing.F) {
	for _, name := range []string{"appmanifest_258550.acf", "appmanifest_258550_half.acf", "app_info_print_258550.txt"} {
		f.Add(readTestdata(f, name))
	}
	for _, s := range []string{`"a" { "b" "c" }`, `"a" {`, `"a" "b`, "\"a\" \"\x00\"", "\xff", `a b // c`, `"a" "\`, `}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ParseVDF(data)
		if err != nil {
			if !errors.Is(err, ErrVDF) {
				t.Fatalf("error not wrapping ErrVDF: %v", err)
			}
		} else if n == nil || !n.Obj {
			t.Fatal("success without a root object")
		}
		_, _ = ParseManifest(data)
		_, _ = ParseAppInfo(data, "258550")
	})
}
