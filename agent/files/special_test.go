//go:build unix

package files

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// specialEnv has a FIFO "pipe" and, when running as root, a character
// device "dev" (1,3: /dev/null), each also behind a symlink "l<name>".
func specialEnv(t *testing.T) (*env, []string) {
	t.Helper()
	e := newEnv(t)
	must(t, mkfifo(e.p("pipe")))
	names := []string{"pipe"}
	if os.Geteuid() == 0 {
		must(t, unix.Mknod(e.p("dev"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))))
		names = append(names, "dev")
	} else {
		t.Log("not root: no device node, FIFO only")
	}
	for _, n := range names {
		e.symlink(n, "l"+n)
	}
	return e, names
}

func TestSpecialFiles_NotAFileEverywhere(t *testing.T) {
	e, names := specialEnv(t)
	for _, n := range names {
		for _, p := range []string{n, "l" + n} {
			zipOf(t, filepath.Join(e.base, "over.zip"), []zipEntry{{name: n, body: "x"}})
			must(t, os.Rename(filepath.Join(e.base, "over.zip"), e.p("over.zip")))
			tests := []struct {
				name, fn, code string
				args           map[string]any
			}{
				{"read", "fm_read", CodeNotAFile, map[string]any{"path": p}},
				{"save over", "fm_save", CodeNotAFile, map[string]any{"path": p, "content": "x"}},
				{"copy from", "fm_copy", CodeNotAFile, map[string]any{"from": p, "to": "copy"}},
				{"chmod", "fm_chmod", CodeNotAFile, map[string]any{"path": n, "mode": "0600"}},
				{"archive", "fm_archive", CodeNotAFile, map[string]any{"paths": []string{p}, "to": "x.zip"}},
				{"extract from", "fm_extract", CodeNotAFile, map[string]any{"path": p, "to": "out"}},
				{"extract over", "fm_extract", CodeNotAFile, map[string]any{"path": "over.zip", "to": ""}},
				{"list", "fm_list", CodeNotADirectory, map[string]any{"path": p}},
				{"search", "fm_search", CodeNotADirectory, map[string]any{"path": p, "query": "x"}},
				{"mkdir over", "fm_mkdir", CodeExists, map[string]any{"path": p}},
				{"extract into", "fm_extract", CodeNotADirectory, map[string]any{"path": "over.zip", "to": p}},
			}
			for _, tt := range tests {
				t.Run(p+"/"+tt.name, func(t *testing.T) {
					e.fail(tt.code, tt.fn, tt.args)
					for _, made := range []string{"copy", "x.zip", "out"} {
						if e.exists(made) {
							t.Fatalf("%s was created", made)
						}
					}
					if fi, err := os.Lstat(e.p(n)); err != nil || fi.Mode().IsRegular() {
						t.Fatalf("%s was replaced: %v %v", n, fi, err)
					}
				})
			}
		}
	}
}
