package files

import (
	"encoding/base64"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/agent/wire"
)

func TestSave(t *testing.T) {
	e := newEnvLimits(t, Limits{SaveMax: 8}, "*.key")
	e.write("cfg/server.cfg", "old content")
	must(t, os.Chmod(e.p("cfg/server.cfg"), 0o600))
	e.write("cfg/target", "t")
	e.symlink("target", "cfg/link")
	e.mkdir("dir")
	tests := []struct {
		name, path, content, encoding, want string
	}{
		{"create", "cfg/new.txt", "hello", "", "hello"},
		{"truncate", "cfg/server.cfg", "new", EncodingUTF8, "new"},
		{"empty", "cfg/empty", "", "", ""},
		{"base64", "cfg/bin", base64.StdEncoding.EncodeToString([]byte{0, 1, 2}), EncodingBase64, "\x00\x01\x02"},
		{"root-relative", "/cfg/abs.txt", "abs", "", "abs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := e.ok("fm_save", map[string]any{"path": tt.path, "content": tt.content, "encoding": tt.encoding})
			if got := e.read(strings.TrimPrefix(tt.path, "/")); got != tt.want {
				t.Fatalf("content %q, want %q", got, tt.want)
			}
			if rep["size"] != float64(len(tt.want)) {
				t.Fatalf("reply %v", rep)
			}
		})
	}
	fi, err := os.Stat(e.p("cfg/server.cfg"))
	must(t, err)
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after save, want the old 0600", fi.Mode())
	}
	e.ok("fm_save", map[string]any{"path": "cfg/link", "content": "via"})
	if fi, _ := os.Lstat(e.p("cfg/link")); fi.Mode()&fs.ModeSymlink == 0 || e.read("cfg/target") != "via" {
		t.Error("save through a symlink inside the root should write its target and keep the link")
	}
	entries, err := os.ReadDir(e.p("cfg"))
	must(t, err)
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), tempPrefix) {
			t.Errorf("temporary file %s left behind", en.Name())
		}
	}
	errs := []struct {
		name, code string
		args       map[string]any
	}{
		{"too large", CodeTooLarge, map[string]any{"path": "x", "content": "123456789"}},
		{"too large base64", CodeTooLarge, map[string]any{"path": "x", "content": base64.StdEncoding.EncodeToString(make([]byte, 9)), "encoding": "base64"}},
		{"bad base64", wire.CodeBadArgs, map[string]any{"path": "x", "content": "!!", "encoding": "base64"}},
		{"bad encoding", wire.CodeBadArgs, map[string]any{"path": "x", "content": "a", "encoding": "latin1"}},
		{"parent missing", CodeNotFound, map[string]any{"path": "no/x", "content": "a"}},
		{"directory", CodeIsADirectory, map[string]any{"path": "dir", "content": "a"}},
		{"root", CodeIsADirectory, map[string]any{"path": "/", "content": "a"}},
		{"under a file", CodeNotADirectory, map[string]any{"path": "cfg/target/x", "content": "a"}},
		{"denied", CodeDenied, map[string]any{"path": "cfg/new.key", "content": "a"}},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(tt.code, "fm_save", tt.args)
			if e.exists("x") {
				t.Fatal("file written")
			}
		})
	}
}

func TestMkdir(t *testing.T) {
	e := newEnv(t, "private/")
	e.write("file", "")
	e.mkdir("real")
	e.symlink("real", "link")
	rep := e.ok("fm_mkdir", map[string]any{"path": "a/b/c"})
	if rep["created"] != true {
		t.Errorf("reply %v", rep)
	}
	if fi, err := os.Stat(e.p("a/b/c")); err != nil || !fi.IsDir() {
		t.Fatalf("a/b/c: %v", err)
	}
	if rep := e.ok("fm_mkdir", map[string]any{"path": "a/b"}); rep["created"] != false {
		t.Errorf("existing dir: %v", rep)
	}
	if rep := e.ok("fm_mkdir", map[string]any{"path": "/"}); rep["created"] != false {
		t.Errorf("root: %v", rep)
	}
	e.ok("fm_mkdir", map[string]any{"path": "link/sub"})
	if !e.exists("real/sub") {
		t.Error("mkdir through a symlink inside the root")
	}
	e.fail(CodeExists, "fm_mkdir", map[string]any{"path": "file"})
	e.fail(CodeNotADirectory, "fm_mkdir", map[string]any{"path": "file/x"})
	e.fail(CodeDenied, "fm_mkdir", map[string]any{"path": "private"})
	e.fail(CodeDenied, "fm_mkdir", map[string]any{"path": "x/private/y"})
	if e.exists("x") {
		t.Error("denied mkdir created parents")
	}
}

func TestChmod(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permission bits are not Unix modes on Windows")
	}
	e := newEnv(t, "*.key")
	e.write("f", "x")
	e.write("k.key", "k")
	e.mkdir("d")
	e.symlink("f", "lf")
	tests := []struct {
		path, mode string
		want       fs.FileMode
	}{
		{"f", "0600", 0o600},
		{"f", "755", 0o755},
		{"f", "0o640", 0o640},
		{"d", "0700", 0o700},
		{"f", "0000", 0},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.mode, func(t *testing.T) {
			e.ok("fm_chmod", map[string]any{"path": tt.path, "mode": tt.mode})
			fi, err := os.Lstat(e.p(tt.path))
			must(t, err)
			if fi.Mode().Perm() != tt.want {
				t.Fatalf("mode %v, want %v", fi.Mode().Perm(), tt.want)
			}
		})
	}
	// An unreadable file can still be changed.
	e.ok("fm_chmod", map[string]any{"path": "f", "mode": "0644"})
	before, _ := os.Stat(e.p("f"))
	errs := []struct {
		name, code string
		args       map[string]any
	}{
		{"symlink never followed", CodeIsASymlink, map[string]any{"path": "lf", "mode": "0777"}},
		{"setuid refused", wire.CodeBadArgs, map[string]any{"path": "f", "mode": "4755"}},
		{"not octal", wire.CodeBadArgs, map[string]any{"path": "f", "mode": "rwx"}},
		{"empty mode", wire.CodeBadArgs, map[string]any{"path": "f", "mode": ""}},
		{"root", CodeInvalidPath, map[string]any{"path": "", "mode": "0777"}},
		{"missing", CodeNotFound, map[string]any{"path": "nope", "mode": "0777"}},
		{"denied", CodeDenied, map[string]any{"path": "k.key", "mode": "0777"}},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(tt.code, "fm_chmod", tt.args)
		})
	}
	if after, _ := os.Stat(e.p("f")); after.Mode() != before.Mode() {
		t.Errorf("target of the symlink changed to %v", after.Mode())
	}
}

// fm_save with create makes a new file and never overwrites one (the panel's "New file").
func TestSave_CreateRefusesAnExistingFile(t *testing.T) {
	e := newEnv(t)
	e.write("cfg/server.cfg", "keep me")
	e.fail(CodeExists, "fm_save", map[string]any{"path": "cfg/server.cfg", "content": "", "create": true})
	if got := e.read("cfg/server.cfg"); got != "keep me" {
		t.Fatalf("the existing file was changed: %q", got)
	}
	if rep := e.ok("fm_save", map[string]any{"path": "cfg/new.cfg", "content": "", "create": true}); rep["size"] != float64(0) {
		t.Fatalf("create: %v", rep)
	}
	if !e.exists("cfg/new.cfg") {
		t.Fatal("cfg/new.cfg was not created")
	}
}
