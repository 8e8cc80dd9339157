package files

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// zipEntry describes an entry of a test archive. kind is "" (file), "dir",
// "symlink" or "hardlink" (tar only); link is a link's target.
type zipEntry struct {
	name, body, kind, link string
	mode                   fs.FileMode
}

func zipOf(t testing.TB, host string, entries []zipEntry) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: time.Unix(1e9, 0)}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		body := e.body
		switch e.kind {
		case "dir":
			mode |= fs.ModeDir
		case "symlink", "hardlink":
			mode |= fs.ModeSymlink
			body = e.link
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		must(t, err)
		_, err = io.WriteString(w, body)
		must(t, err)
	}
	must(t, zw.Close())
	must(t, os.WriteFile(host, buf.Bytes(), 0o644))
}

func tarGzOf(t testing.TB, host string, entries []zipEntry) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		h := &tar.Header{Name: e.name, Mode: int64(mode), Size: int64(len(e.body)), Typeflag: tar.TypeReg, ModTime: time.Unix(1e9, 0)}
		switch e.kind {
		case "dir":
			h.Typeflag, h.Size = tar.TypeDir, 0
		case "symlink":
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		case "hardlink":
			h.Typeflag, h.Linkname, h.Size = tar.TypeLink, e.link, 0
		}
		must(t, tw.WriteHeader(h))
		_, err := io.WriteString(tw, e.body)
		must(t, err)
	}
	must(t, tw.Close())
	must(t, gz.Close())
	must(t, os.WriteFile(host, buf.Bytes(), 0o644))
}

var formats = []struct {
	ext   string
	write func(testing.TB, string, []zipEntry)
}{
	{".zip", zipOf},
	{".tar.gz", tarGzOf},
}

func TestArchive_RoundTrip(t *testing.T) {
	for _, f := range formats {
		t.Run(f.ext, func(t *testing.T) {
			e := newEnv(t)
			e.write("world/level.dat", "level")
			e.write("world/region/r.0.0.mca", "\x00\x01binary")
			e.mkdir("world/empty")
			e.write("server.cfg", "cfg")
			e.mkdir("backup")
			must(t, os.Chmod(e.p("server.cfg"), 0o600))
			rep := e.ok("fm_archive", map[string]any{"paths": []string{"world", "server.cfg"}, "to": "backup/b" + f.ext})
			if rep["entries"] != float64(6) || rep["size"].(float64) <= 0 {
				t.Fatalf("archive reply %v", rep)
			}
			rep = e.ok("fm_extract", map[string]any{"path": "backup/b" + f.ext, "to": "restore/here"})
			if rep["entries"] != float64(6) || rep["size"] != float64(len("level")+len("\x00\x01binary")+len("cfg")) {
				t.Fatalf("extract reply %v", rep)
			}
			for _, p := range []string{"world/level.dat", "world/region/r.0.0.mca", "server.cfg"} {
				if got := e.read("restore/here/" + p); got != e.read(p) {
					t.Errorf("%s: %q, want %q", p, got, e.read(p))
				}
			}
			fi, err := os.Stat(e.p("restore/here/server.cfg"))
			must(t, err)
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode())
			}
			if fi, err := os.Stat(e.p("restore/here/world/empty")); err != nil || !fi.IsDir() {
				t.Errorf("empty dir not restored: %v", err)
			}
		})
	}
}

func TestArchive_RootAndSkips(t *testing.T) {
	e := newEnv(t, "*.key")
	e.write("a.txt", "a")
	e.write("d/b.key", "secret")
	e.write("d/c.txt", "c")
	e.symlink("../sentinel", "d/out")
	e.symlink("a.txt", "alink")
	e.ok("fm_archive", map[string]any{"paths": []string{"/"}, "to": "all.zip"})
	zr, err := zip.OpenReader(e.p("all.zip"))
	must(t, err)
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	want := []string{"a.txt", "d/", "d/c.txt"}
	if !slices.Equal(names, want) {
		t.Fatalf("entries %q, want %q (denied, symlinks and the archive itself skipped)", names, want)
	}
}

func TestArchive_Errors(t *testing.T) {
	e := newEnv(t, "*.key")
	e.write("a/x.txt", "x")
	e.write("b/x.txt", "x")
	e.write("k.key", "k")
	e.write("exists.zip", "z")
	tests := []struct {
		name, code string
		args       map[string]any
	}{
		{"missing paths", wire.CodeBadArgs, map[string]any{"to": "o.zip"}},
		{"empty paths", wire.CodeBadArgs, map[string]any{"paths": []string{}, "to": "o.zip"}},
		{"missing to", wire.CodeBadArgs, map[string]any{"paths": []string{"a"}}},
		{"unknown format", wire.CodeBadArgs, map[string]any{"paths": []string{"a"}, "to": "o.rar"}},
		{"to exists", CodeExists, map[string]any{"paths": []string{"a"}, "to": "exists.zip"}},
		{"same base name twice", wire.CodeBadArgs, map[string]any{"paths": []string{"a/x.txt", "b/x.txt"}, "to": "o.zip"}},
		{"source missing", CodeNotFound, map[string]any{"paths": []string{"nope"}, "to": "o.zip"}},
		{"denied source", CodeDenied, map[string]any{"paths": []string{"k.key"}, "to": "o.zip"}},
		{"denied target", CodeDenied, map[string]any{"paths": []string{"a"}, "to": "o.key"}},
		{"target dir missing", CodeNotFound, map[string]any{"paths": []string{"a"}, "to": "no/o.zip"}},
		{"paths not a list", wire.CodeBadArgs, map[string]any{"paths": "a", "to": "o.zip"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(tt.code, "fm_archive", tt.args)
			if e.exists("o.zip") {
				t.Fatal("archive written")
			}
		})
	}
}

// TestExtract_Refused: hostile or over-limit archives are refused whole;
// nothing is written in the root and nothing outside it is touched.
func TestExtract_Refused(t *testing.T) {
	long := strings.Repeat("n", 300)
	tests := []struct {
		name, code string
		entries    []zipEntry
		limits     Limits
		only       string // one format only
	}{
		{name: "dotdot entry", code: CodeOutsideRoot, entries: []zipEntry{{name: "ok"}, {name: "../../sentinel/secret", body: "PWNED"}}},
		{name: "dotdot in the middle", code: CodeOutsideRoot, entries: []zipEntry{{name: "a/../../x", body: "PWNED"}}},
		{name: "absolute entry", code: CodeOutsideRoot, entries: []zipEntry{{name: "/tmp/pwned", body: "PWNED"}}},
		{name: "drive letter entry", code: CodeOutsideRoot, entries: []zipEntry{{name: "C:/pwned", body: "PWNED"}}},
		{name: "symlink entry then a file through it", code: CodeInvalidArch, entries: []zipEntry{
			{name: "ok"}, {name: "link", kind: "symlink", link: "../../sentinel"}, {name: "link/secret", body: "PWNED"}}},
		{name: "symlink entry pointing inside", code: CodeInvalidArch, entries: []zipEntry{{name: "l", kind: "symlink", link: "ok"}}},
		{name: "hard link entry", code: CodeInvalidArch, only: ".tar.gz", entries: []zipEntry{{name: "h", kind: "hardlink", link: "../../sentinel/secret"}}},
		{name: "very long name", code: CodeInvalidPath, entries: []zipEntry{{name: long, body: "x"}}},
		{name: "nul in name", code: CodeInvalidPath, only: ".zip", entries: []zipEntry{{name: "a\x00b", body: "x"}}},
		{name: "backslash name", code: CodeInvalidPath, entries: []zipEntry{{name: `..\..\x`, body: "x"}}},
		{name: "file then dir of that name", code: CodeInvalidArch, entries: []zipEntry{{name: "a", body: "x"}, {name: "a/b", body: "y"}}},
		{name: "denied target", code: CodeDenied, entries: []zipEntry{{name: "ok"}, {name: "d/server.key", body: "k"}}},
		{name: "too many entries", code: CodeTooLarge, limits: Limits{ExtractMaxEntries: 2},
			entries: []zipEntry{{name: "a"}, {name: "b"}, {name: "c"}}},
		{name: "too many bytes", code: CodeTooLarge, limits: Limits{ExtractMaxBytes: 10},
			entries: []zipEntry{{name: "a", body: "123456"}, {name: "b", body: "123456"}}},
		{name: "bomb", code: CodeTooLarge, limits: Limits{ExtractMaxBytes: 1 << 20},
			entries: []zipEntry{{name: "zeros", body: strings.Repeat("\x00", 2<<20)}}},
	}
	for _, f := range formats {
		for _, tt := range tests {
			if tt.only != "" && tt.only != f.ext {
				continue
			}
			t.Run(f.ext+"/"+tt.name, func(t *testing.T) {
				e := newEnvLimits(t, tt.limits, "*.key")
				e.guardSentinel()
				f.write(t, e.p("in"+f.ext), tt.entries)
				e.fail(tt.code, "fm_extract", map[string]any{"path": "in" + f.ext, "to": "dest"})
				if e.exists("dest") {
					t.Fatal("dest created")
				}
			})
		}
	}
}

func TestExtract_Targets(t *testing.T) {
	e := newEnv(t)
	e.guardSentinel()
	e.write("dest/cfg.txt", "old")
	e.write("dest/target.txt", "target")
	e.symlink("target.txt", "dest/link.txt")
	e.mkdir("dest/adir")
	e.symlink("../../sentinel", "dest/out")
	e.write("afile", "f")
	zipOf(t, e.p("upd.zip"), []zipEntry{{name: "cfg.txt", body: "new"}, {name: "link.txt", body: "replaced"}, {name: "./", kind: "dir"}})
	e.ok("fm_extract", map[string]any{"path": "upd.zip", "to": "dest"})
	if e.read("dest/cfg.txt") != "new" || e.read("dest/target.txt") != "target" || e.read("dest/link.txt") != "replaced" {
		t.Fatal("existing file not replaced, or written through a symlink")
	}
	if fi, _ := os.Lstat(e.p("dest/link.txt")); fi.Mode()&fs.ModeSymlink != 0 {
		t.Fatal("symlink kept; the entry should replace it")
	}
	tests := []struct {
		name, code string
		entries    []zipEntry
		to         string
	}{
		{"file over a directory", CodeIsADirectory, []zipEntry{{name: "adir", body: "x"}}, "dest"},
		{"dir over a file", CodeExists, []zipEntry{{name: "cfg.txt/", kind: "dir"}}, "dest"},
		{"through an existing link out", CodeOutsideRoot, []zipEntry{{name: "out/secret", body: "PWNED"}}, "dest"},
		{"into a file", CodeNotADirectory, []zipEntry{{name: "x", body: "x"}}, "afile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zipOf(t, e.p("t.zip"), tt.entries)
			e.fail(tt.code, "fm_extract", map[string]any{"path": "t.zip", "to": tt.to})
		})
	}
}

func TestExtract_Errors(t *testing.T) {
	e := newEnv(t)
	e.write("bad.zip", "not a zip")
	e.write("bad.tgz", "not gzip")
	e.write("x.rar", "rar")
	e.mkdir("dir.zip")
	tests := []struct {
		name, code string
		args       map[string]any
	}{
		{"missing path", wire.CodeBadArgs, map[string]any{"to": "d"}},
		{"missing to", wire.CodeBadArgs, map[string]any{"path": "bad.zip"}},
		{"not found", CodeNotFound, map[string]any{"path": "nope.zip", "to": "d"}},
		{"corrupt zip", CodeInvalidArch, map[string]any{"path": "bad.zip", "to": "d"}},
		{"corrupt tgz", CodeInvalidArch, map[string]any{"path": "bad.tgz", "to": "d"}},
		{"unknown format", wire.CodeBadArgs, map[string]any{"path": "x.rar", "to": "d"}},
		{"a directory", CodeIsADirectory, map[string]any{"path": "dir.zip", "to": "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(tt.code, "fm_extract", tt.args)
		})
	}
}
