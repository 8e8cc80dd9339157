//go:build unix

package files

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// hardLinkEnv is an instance whose root holds hard links to files in the
// sentinel beside it: ln (to sentinel/secret), tree/ln (to sentinel/f) and
// a.zip (to an archive outside).
func hardLinkEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	zipOf(t, filepath.Join(e.sentinel, "outside.zip"), []zipEntry{{name: "x.txt", body: "SENTINEL"}})
	e.mkdir("tree")
	e.write("tree/plain", "plain")
	must(t, os.Link(filepath.Join(e.sentinel, "secret"), e.p("ln")))
	must(t, os.Link(filepath.Join(e.sentinel, "f"), e.p("tree/ln")))
	must(t, os.Link(filepath.Join(e.sentinel, "outside.zip"), e.p("a.zip")))
	e.symlink("ln", "sym")
	e.guardSentinel()
	return e
}

func TestHardLink_OutsideFileUntouchedAndUnread(t *testing.T) {
	e := hardLinkEnv(t)
	tests := []struct {
		name, fn string
		args     map[string]any
		created  string // must not exist afterwards
	}{
		{"chmod", "fm_chmod", map[string]any{"path": "ln", "mode": "0777"}, ""},
		{"chmod in a tree", "fm_chmod", map[string]any{"path": "tree/ln", "mode": "0600"}, ""},
		{"read", "fm_read", map[string]any{"path": "ln"}, ""},
		{"read through a symlink", "fm_read", map[string]any{"path": "sym"}, ""},
		{"copy", "fm_copy", map[string]any{"from": "ln", "to": "copy"}, "copy"},
		{"copy a tree holding one", "fm_copy", map[string]any{"from": "tree", "to": "tree2"}, "tree2"},
		{"archive", "fm_archive", map[string]any{"paths": []string{"ln"}, "to": "x.zip"}, "x.zip"},
		{"archive a tree holding one", "fm_archive", map[string]any{"paths": []string{"tree"}, "to": "t.tar.gz"}, "t.tar.gz"},
		{"extract a linked archive", "fm_extract", map[string]any{"path": "a.zip", "to": "out"}, "out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			werr := e.fail(CodeHardLink, tt.fn, tt.args)
			if tt.fn != "fm_chmod" && !containsAll(werr.Msg, "hard links", "files.allow_hardlinks") {
				t.Errorf("message %q does not say why and what allows it", werr.Msg)
			}
			if tt.created != "" && e.exists(tt.created) {
				t.Errorf("%s was created", tt.created)
			}
		})
	}
	// Writing replaces the name, not the shared inode: the outside file
	// keeps its content (guardSentinel).
	e.ok("fm_save", map[string]any{"path": "ln", "content": "new"})
	if e.read("ln") != "new" {
		t.Fatal("save over a hard link")
	}
}

func TestHardLink_AllowedByOption(t *testing.T) {
	e := hardLinkEnv(t)
	e.m = e.m.WithHardlinks()
	if rep := e.ok("fm_read", map[string]any{"path": "ln"}); rep["content"] != "SENTINEL" {
		t.Fatalf("read %v", rep)
	}
	e.ok("fm_copy", map[string]any{"from": "tree", "to": "tree2"})
	e.ok("fm_archive", map[string]any{"paths": []string{"ln", "tree"}, "to": "x.zip"})
	e.ok("fm_extract", map[string]any{"path": "a.zip", "to": "out"})
	if e.read("tree2/ln") != "SENTINEL" || e.read("out/x.txt") != "SENTINEL" {
		t.Fatal("content of allowed hard links not copied or extracted")
	}
	e.fail(CodeHardLink, "fm_chmod", map[string]any{"path": "ln", "mode": "0777"})
}

// TestChmodNoFollow_RefusesHardLinks checks the descriptor-level check that
// catches a link made after fm_chmod's own check.
func TestChmodNoFollow_RefusesHardLinks(t *testing.T) {
	e := hardLinkEnv(t)
	r, err := os.OpenRoot(e.root)
	must(t, err)
	defer r.Close()
	if err := chmodNoFollow(r, "tree/ln", 0o777); !isCode(err, CodeHardLink) {
		t.Fatalf("chmodNoFollow on a hard link: %v", err)
	}
	must(t, chmodNoFollow(r, "tree/plain", 0o600))
	if fi, _ := os.Stat(e.p("tree/plain")); fi.Mode() != fs.FileMode(0o600) {
		t.Fatalf("plain file mode %v", fi.Mode())
	}
}
