package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/corrosion/corrosion/agent/wire"
)

func TestCleanPath(t *testing.T) {
	long := strings.Repeat("a", 256)
	tests := []struct {
		name, in, want, code string
	}{
		{"empty is root", "", "", ""},
		{"dot is root", ".", "", ""},
		{"slash is root", "/", "", ""},
		{"plain", "a/b.txt", "a/b.txt", ""},
		{"leading slash is root-relative", "/etc/passwd", "etc/passwd", ""},
		{"many slashes", "//a///b/", "a/b", ""},
		{"dot names dropped", "./a/./b/.", "a/b", ""},
		{"dotdot", "..", "", CodeOutsideRoot},
		{"dotdot prefix", "../x", "", CodeOutsideRoot},
		{"dotdot inside", "a/../b", "", CodeOutsideRoot},
		{"dotdot climbing", "a/../../x", "", CodeOutsideRoot},
		{"absolute dotdot", "/../x", "", CodeOutsideRoot},
		{"dots are a name", "...", "...", ""},
		{"dotdot as part of a name", "a..b/..c", "a..b/..c", ""},
		{"nul", "a\x00b", "", CodeInvalidPath},
		{"backslash", `a\..\..\x`, "", CodeInvalidPath},
		{"long name", long, "", CodeInvalidPath},
		{"name at limit", long[:255], long[:255], ""},
		{"long path", strings.Repeat("a/", 2049), "", CodeInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cleanPath(tt.in)
			if tt.code != "" {
				var we *wire.Error
				if !errors.As(err, &we) || we.Code != tt.code {
					t.Fatalf("cleanPath(%q) = %q, %v; want code %s", tt.in, got, err, tt.code)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("cleanPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestIsEscape pins the text of os.Root's escape error that isEscape
// recognises, so a Go upgrade changing it fails here.
func TestIsEscape(t *testing.T) {
	e := newEnv(t)
	e.symlink("../sentinel", "out")
	r, err := os.OpenRoot(e.root)
	must(t, err)
	defer r.Close()
	for _, name := range []string{"../x", "out/secret"} {
		_, err := r.Open(name)
		if !isEscape(err) {
			t.Errorf("Open(%q): %v is not recognised as an escape", name, err)
		}
	}
	if isEscape(os.ErrNotExist) {
		t.Error("ErrNotExist taken for an escape")
	}
}

func TestResolve(t *testing.T) {
	e := newEnv(t)
	e.write("d/f", "x")
	e.symlink("d", "ld")
	e.symlink("../d/f", "sub/lf")
	e.symlink("loop2", "loop1")
	e.symlink("loop1", "loop2")
	e.symlink("../sentinel", "out")
	e.symlink(e.sentinel, "abs")
	e.symlink("sub/../d", "via")
	r, err := os.OpenRoot(e.root)
	must(t, err)
	defer r.Close()
	tests := []struct {
		name, in        string
		follow, missing bool
		want, code      string
		wantNil         bool
	}{
		{name: "root", in: "", want: ""},
		{name: "file", in: "d/f", want: "d/f"},
		{name: "dir link in the middle", in: "ld/f", want: "d/f"},
		{name: "final link followed", in: "sub/lf", follow: true, want: "d/f"},
		{name: "final link kept", in: "sub/lf", want: "sub/lf"},
		{name: "link through dotdot", in: "via/f", want: "d/f"},
		{name: "missing", in: "d/nope", code: CodeNotFound},
		{name: "missing allowed", in: "ld/nope/x", missing: true, want: "d/nope/x", wantNil: true},
		{name: "under a file", in: "d/f/x", code: CodeNotADirectory},
		{name: "loop", in: "loop1", follow: true, code: CodeInvalidPath},
		{name: "escaping link", in: "out/secret", code: CodeOutsideRoot},
		{name: "escaping link final followed", in: "out", follow: true, code: CodeOutsideRoot},
		{name: "escaping link final kept", in: "out", want: "out"},
		{name: "absolute link", in: "abs/secret", code: CodeOutsideRoot},
		{name: "escaping link missing allowed", in: "out/new", missing: true, code: CodeOutsideRoot},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := resolve(r, tt.in, lookup{follow: tt.follow, missing: tt.missing})
			if tt.code != "" {
				var we *wire.Error
				if !errors.As(err, &we) || we.Code != tt.code {
					t.Fatalf("resolve(%q) = %+v, %v; want code %s", tt.in, res, err, tt.code)
				}
				return
			}
			if err != nil || res.rel != tt.want || (res.info == nil) != tt.wantNil {
				t.Fatalf("resolve(%q) = %+v, %v; want %q", tt.in, res, err, tt.want)
			}
		})
	}
}

// slot is one place a path goes into a request.
type slot struct {
	fn, arg string
}

var pathSlots = []slot{
	{"fm_list", "path"}, {"fm_stat", "path"}, {"fm_read", "path"}, {"fm_save", "path"},
	{"fm_mkdir", "path"}, {"fm_rename", "from"}, {"fm_rename", "to"}, {"fm_copy", "from"},
	{"fm_copy", "to"}, {"fm_delete", "path"}, {"fm_chmod", "path"}, {"fm_search", "path"},
	{"fm_archive", "paths"}, {"fm_archive", "to"}, {"fm_extract", "path"}, {"fm_extract", "to"},
}

// slotArgs builds a valid request for s with p in the slot.
func slotArgs(s slot, p string) map[string]any {
	args := map[string]any{}
	switch s.fn {
	case "fm_save":
		args["content"] = "PWNED"
	case "fm_rename", "fm_copy":
		args["from"], args["to"] = "ok.txt", "ok2.txt"
	case "fm_chmod":
		args["mode"] = "0777"
	case "fm_search":
		args["query"] = "e"
	case "fm_archive":
		args["paths"], args["to"] = []string{"ok.txt"}, "new.zip"
	case "fm_extract":
		args["path"], args["to"] = "ok.zip", "dest"
	}
	if s.arg == "paths" {
		args["paths"] = []string{p}
	} else {
		args[s.arg] = p
	}
	return args
}

// TestEscapes sends every escape attempt in every path argument of every
// func; each must be refused with its code and the sentinel beside the
// root must stay byte-for-byte the same.
func TestEscapes(t *testing.T) {
	attacks := []struct {
		name, path, code string
		perSlot          map[slot]string // codes differing from code
	}{
		{name: "dotdot", path: "../sentinel/secret", code: CodeOutsideRoot},
		{name: "dotdot in the middle", path: "a/../../sentinel/secret", code: CodeOutsideRoot},
		{name: "dotdot only", path: "..", code: CodeOutsideRoot},
		{name: "symlink dir pointing out", path: "linkdir/secret", code: CodeOutsideRoot},
		{name: "symlink dir pointing out, new name", path: "linkdir/new", code: CodeOutsideRoot},
		{name: "symlink dir pointing out, deep", path: "deep/er/up/sub/deep", code: CodeOutsideRoot},
		{name: "absolute symlink", path: "abslink/secret", code: CodeOutsideRoot},
		{name: "nul byte", path: "ok.txt\x00/x", code: CodeInvalidPath},
		{name: "backslash dotdot", path: `..\sentinel\secret`, code: CodeInvalidPath},
		{name: "very long name", path: strings.Repeat("n", 300), code: CodeInvalidPath},
		{name: "very long path", path: strings.Repeat("d/", 3000), code: CodeInvalidPath},
		{name: "symlink file pointing out", path: "linkfile", code: CodeOutsideRoot, perSlot: map[slot]string{
			{"fm_stat", "path"}:   "",
			{"fm_delete", "path"}: "",
			{"fm_rename", "from"}: "",
			{"fm_rename", "to"}:   CodeExists,
			{"fm_copy", "to"}:     CodeExists,
			{"fm_archive", "to"}:  wire.CodeBadArgs, // no archive extension
			{"fm_chmod", "path"}:  CodeIsASymlink,
		}},
	}
	for _, a := range attacks {
		for _, s := range pathSlots {
			t.Run(a.name+"/"+s.fn+"."+s.arg, func(t *testing.T) {
				e := newEscapeEnv(t)
				want, ok := a.perSlot[s]
				if !ok {
					want = a.code
				}
				rep, werr := e.call(s.fn, slotArgs(s, a.path))
				switch {
				case want == "" && werr != nil:
					t.Fatalf("%s: %s: %s, want success", s.fn, werr.Code, werr.Msg)
				case want != "" && werr == nil:
					t.Fatalf("%s: success %v, want %s", s.fn, rep, want)
				case want != "" && werr.Code != want:
					t.Fatalf("%s: %s: %s, want %s", s.fn, werr.Code, werr.Msg, want)
				}
			})
		}
	}
}

// newEscapeEnv is a root with links pointing out and valid operands.
func newEscapeEnv(t *testing.T) *env {
	e := newEnv(t)
	e.write("ok.txt", "ok")
	e.mkdir("a")
	e.symlink("../sentinel", "linkdir")
	e.symlink("../../../sentinel", "deep/er/up")
	e.symlink(e.sentinel, "abslink")
	e.symlink("../sentinel/secret", "linkfile")
	zipOf(t, e.p("ok.zip"), []zipEntry{{name: "x.txt", body: "x"}})
	e.guardSentinel()
	return e
}

// TestAbsolutePathsAreRootRelative: a leading "/" names the instance root,
// so a host path lands inside the root and never on the host.
func TestAbsolutePathsAreRootRelative(t *testing.T) {
	e := newEnv(t)
	e.guardSentinel()
	abs := filepath.ToSlash(filepath.Join(e.sentinel, "new"))
	e.ok("fm_mkdir", map[string]any{"path": abs})
	if !e.exists(strings.TrimPrefix(abs, "/")) {
		t.Fatalf("mkdir %q: not created inside the root", abs)
	}
	e.fail(CodeNotFound, "fm_read", map[string]any{"path": filepath.ToSlash(filepath.Join(e.sentinel, "secret"))})
	e.write("etc/x", "in root")
	rep := e.ok("fm_read", map[string]any{"path": "/etc/x"})
	if rep["content"] != "in root" {
		t.Fatalf("read /etc/x = %v", rep)
	}
	e.ok("fm_save", map[string]any{"path": "/etc/x", "content": "saved"})
	if e.read("etc/x") != "saved" {
		t.Fatal("save /etc/x did not write the root's etc/x")
	}
}

// TestRace_SymlinkSwap flips a directory and a symlink pointing out under
// the same name while operations run through it: nothing outside the root
// may be touched, and no read may return the sentinel's content.
func TestRace_SymlinkSwap(t *testing.T) {
	e := newEnv(t)
	e.guardSentinel()
	e.write("real/f", "inside")
	e.write("real/g", "inside")
	e.symlink("../sentinel", "evil")
	zipOf(t, e.p("in.zip"), []zipEntry{{name: "f", body: "zipped"}, {name: "n/new", body: "zipped"}})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Rename(e.p("real"), e.p("flip"))
			_ = os.Rename(e.p("flip"), e.p("real"))
			_ = os.Rename(e.p("evil"), e.p("flip"))
			_ = os.Rename(e.p("flip"), e.p("evil"))
		}
	}()
	ops := []struct {
		fn   string
		args map[string]any
	}{
		{"fm_read", map[string]any{"path": "flip/f"}},
		{"fm_save", map[string]any{"path": "flip/f", "content": "PWNED"}},
		{"fm_save", map[string]any{"path": "flip/secret", "content": "PWNED"}},
		{"fm_mkdir", map[string]any{"path": "flip/sub/x"}},
		{"fm_chmod", map[string]any{"path": "flip/g", "mode": "0600"}},
		{"fm_chmod", map[string]any{"path": "flip/secret", "mode": "0777"}},
		{"fm_list", map[string]any{"path": "flip"}},
		{"fm_copy", map[string]any{"from": "flip/g", "to": "flip/g2"}},
		{"fm_rename", map[string]any{"from": "flip/g2", "to": "flip/g3"}},
		{"fm_delete", map[string]any{"path": "flip/g3"}},
		{"fm_delete", map[string]any{"path": "flip/secret"}},
		{"fm_delete", map[string]any{"path": "flip/sub"}},
		{"fm_extract", map[string]any{"path": "in.zip", "to": "flip"}},
		{"fm_archive", map[string]any{"paths": []string{"flip"}, "to": "flip/a.zip"}},
		{"fm_search", map[string]any{"path": "flip", "query": "e"}},
	}
	for range 100 {
		for _, op := range ops {
			rep, werr := e.call(op.fn, op.args)
			if werr == nil && rep["content"] == "SENTINEL" {
				t.Fatalf("%s read the sentinel", op.fn)
			}
		}
	}
	close(stop)
	wg.Wait()
}

func TestRootMissing(t *testing.T) {
	base := t.TempDir()
	m, err := New(filepath.Join(base, "later"), nil, Limits{}, testLogger(t))
	must(t, err)
	for _, fn := range Funcs() {
		t.Run(fn, func(t *testing.T) {
			_, werr := callManager(t, m, fn, map[string]any{"path": ""})
			if werr == nil || werr.Code != CodeRootMissing || !strings.Contains(werr.Msg, "instance root missing") {
				t.Fatalf("%s: %v, want %s", fn, werr, CodeRootMissing)
			}
		})
	}
	must(t, os.Mkdir(filepath.Join(base, "later"), 0o755))
	if _, werr := callManager(t, m, "fm_list", map[string]any{"path": ""}); werr != nil {
		t.Fatalf("list after the root appeared: %v", werr)
	}
}
