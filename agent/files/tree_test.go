package files

import (
	"io/fs"
	"os"
	"testing"
)

func TestRename(t *testing.T) {
	e := newEnv(t, "*.key", "/locked/")
	e.write("a.txt", "a")
	e.write("dir/x", "x")
	e.write("dir2/s.key", "k")
	e.write("target", "t")
	e.symlink("target", "link")
	e.mkdir("dest")
	e.mkdir("locked")
	tests := []struct {
		name, from, to string
	}{
		{"rename a file", "a.txt", "b.txt"},
		{"move into a directory", "b.txt", "dest/b.txt"},
		{"move a directory", "dir", "dest/dir"},
		{"rename a symlink, not its target", "link", "link2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.ok("fm_rename", map[string]any{"from": tt.from, "to": tt.to})
			if e.exists(tt.from) || !e.exists(tt.to) {
				t.Fatalf("%s -> %s not moved", tt.from, tt.to)
			}
		})
	}
	if fi, _ := os.Lstat(e.p("link2")); fi.Mode()&fs.ModeSymlink == 0 || !e.exists("target") {
		t.Error("the link's target moved instead of the link")
	}
	errs := []struct {
		name, code, from, to string
	}{
		{"target exists", CodeExists, "target", "dest/b.txt"},
		{"source missing", CodeNotFound, "nope", "x"},
		{"target parent missing", CodeNotFound, "target", "no/x"},
		{"into itself", CodeInvalidPath, "dest", "dest/sub/dest"},
		{"the root", CodeInvalidPath, "/", "x"},
		{"denied source", CodeDenied, "dir2/s.key", "x"},
		{"tree holding a denied path", CodeDenied, "dir2", "dir3"},
		{"denied target", CodeDenied, "target", "t.key"},
		{"into a denied dir", CodeDenied, "target", "locked/t"},
		{"target under a file", CodeNotADirectory, "dest/b.txt", "target/x"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(tt.code, "fm_rename", map[string]any{"from": tt.from, "to": tt.to})
		})
	}
	if !e.exists("dir2/s.key") || !e.exists("target") {
		t.Error("a refused rename moved something")
	}
}

func TestCopy(t *testing.T) {
	e := newEnv(t, "*.key")
	e.guardSentinel()
	e.write("f.txt", "file")
	must(t, os.Chmod(e.p("f.txt"), 0o600))
	e.write("tree/a", "a")
	e.write("tree/sub/b", "b")
	e.mkdir("tree/empty")
	e.symlink("a", "tree/la")
	e.symlink("sub/b", "tree/lb")
	e.write("withkey/s.key", "k")
	e.write("esc/ok", "ok")
	e.symlink("../../sentinel", "esc/out")
	e.symlink("f.txt", "lf")
	if err := mkfifo(e.p("tree/pipe")); err != nil {
		t.Log("no FIFO:", err)
	}
	e.ok("fm_copy", map[string]any{"from": "f.txt", "to": "g.txt"})
	if e.read("g.txt") != "file" || e.read("f.txt") != "file" {
		t.Fatal("file copy")
	}
	if fi, _ := os.Stat(e.p("g.txt")); fi.Mode().Perm() != 0o600 {
		t.Errorf("copy mode %v, want 0600", fi.Mode())
	}
	e.ok("fm_copy", map[string]any{"from": "tree", "to": "tree2"})
	for _, p := range []string{"a", "sub/b", "la", "lb"} {
		if e.read("tree2/"+p) != e.read("tree/"+p) {
			t.Errorf("tree2/%s differs", p)
		}
	}
	if target, err := os.Readlink(e.p("tree2/la")); err != nil || target != "a" {
		t.Errorf("symlink copied as %q, %v", target, err)
	}
	if !e.exists("tree2/empty") || e.exists("tree2/pipe") {
		t.Error("empty dir not copied, or FIFO copied")
	}
	e.ok("fm_copy", map[string]any{"from": "lf", "to": "fromlink.txt"})
	if fi, _ := os.Lstat(e.p("fromlink.txt")); !fi.Mode().IsRegular() {
		t.Error("copying a symlink should copy its target's content")
	}
	errs := []struct {
		name, code, from, to string
	}{
		{"target exists", CodeExists, "f.txt", "g.txt"},
		{"source missing", CodeNotFound, "nope", "x"},
		{"into itself", CodeInvalidPath, "tree", "tree/sub/copy"},
		{"the root", CodeInvalidPath, "", "x"},
		{"tree holding a denied path", CodeDenied, "withkey", "x"},
		{"denied target", CodeDenied, "f.txt", "x.key"},
		{"symlink would point out", CodeOutsideRoot, "esc", "x"},
		{"symlink would point out from the new place", CodeOutsideRoot, "deep/er/t3", "x"},
	}
	e.symlink("../../../f.txt", "deep/er/t3/up")
	if e.read("deep/er/t3/up") != "file" {
		t.Fatal("test link does not resolve inside the root")
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(tt.code, "fm_copy", map[string]any{"from": tt.from, "to": tt.to})
			if e.exists("x") {
				t.Fatal("a refused copy wrote something")
			}
		})
	}
}

func TestDelete(t *testing.T) {
	e := newEnv(t, "*.key")
	e.guardSentinel()
	e.write("f", "x")
	e.write("tree/a/b/c", "x")
	e.write("keep/deep/s.key", "k")
	e.write("keep/other", "o")
	e.write("target", "t")
	e.symlink("target", "link")
	e.symlink("../sentinel", "out")
	e.write("k.key", "k")
	for _, p := range []string{"f", "tree", "link", "out"} {
		t.Run(p, func(t *testing.T) {
			e.ok("fm_delete", map[string]any{"path": p})
			if e.exists(p) {
				t.Fatalf("%s still there", p)
			}
		})
	}
	if !e.exists("target") {
		t.Error("deleting a link deleted its target")
	}
	errs := []struct {
		name, code, path string
	}{
		{"missing", CodeNotFound, "f"},
		{"root", CodeInvalidPath, "/"},
		{"root as dot", CodeInvalidPath, "."},
		{"denied", CodeDenied, "k.key"},
		{"tree holding a denied path", CodeDenied, "keep"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(tt.code, "fm_delete", map[string]any{"path": tt.path})
		})
	}
	if !e.exists("keep/other") || !e.exists("keep/deep/s.key") {
		t.Error("a refused delete removed part of the tree")
	}
}
