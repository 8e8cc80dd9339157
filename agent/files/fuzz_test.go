package files

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/agent/wire"
)

// fuzzEnv is one root shared by a fuzzer's runs, with links pointing out
// and a sentinel beside it.
type fuzzEnv struct {
	m                    *Manager
	root, sentinel, base string
	before               map[string]string
	zip                  []byte // ok.zip, a valid archive
}

func newFuzzEnv(f *testing.F) *fuzzEnv {
	base := f.TempDir()
	fe := &fuzzEnv{base: base, root: filepath.Join(base, "root"), sentinel: filepath.Join(base, "sentinel")}
	must(f, os.MkdirAll(filepath.Join(fe.sentinel, "sub"), 0o755))
	must(f, os.WriteFile(filepath.Join(fe.sentinel, "secret"), []byte("SENTINEL"), 0o644))
	must(f, os.WriteFile(filepath.Join(fe.sentinel, "sub", "deep"), []byte("SENTINEL"), 0o644))
	must(f, os.MkdirAll(fe.root, 0o755))
	zipOf(f, filepath.Join(base, "ok.zip"), []zipEntry{{name: "x.txt", body: "x"}, {name: "d/", kind: "dir"}})
	zipBytes, err := os.ReadFile(filepath.Join(base, "ok.zip"))
	must(f, err)
	fe.zip = zipBytes
	fe.fixtures()
	m, err := New(fe.root, []string{"*.key", "/locked/"}, Limits{SaveMax: 1 << 10, ExtractMaxBytes: 1 << 20, ExtractMaxEntries: 100}, nil)
	must(f, err)
	fe.m = m
	fe.before = snapshot(f, fe.sentinel)
	return fe
}

// fixtures (re)creates the tree the fuzzers aim at; runs may delete parts.
func (fe *fuzzEnv) fixtures() {
	_ = os.MkdirAll(filepath.Join(fe.root, "a", "b"), 0o755)
	_ = os.WriteFile(filepath.Join(fe.root, "a", "f.txt"), []byte("f"), 0o644)
	_ = os.Symlink("../sentinel", filepath.Join(fe.root, "out"))
	_ = os.Symlink("../../../sentinel/secret", filepath.Join(fe.root, "a", "b", "up"))
	_ = os.Symlink(fe.sentinel, filepath.Join(fe.root, "abs"))
	_ = os.Symlink("a", filepath.Join(fe.root, "in"))
	if _, err := os.Lstat(filepath.Join(fe.root, "ok.zip")); err != nil {
		_ = os.WriteFile(filepath.Join(fe.root, "ok.zip"), fe.zip, 0o644)
	}
	if _, err := os.Lstat(filepath.Join(fe.root, "ok.txt")); err != nil {
		_ = os.WriteFile(filepath.Join(fe.root, "ok.txt"), []byte("ok"), 0o644)
	}
}

// check fails unless the sentinel is unchanged and err is coded.
func (fe *fuzzEnv) check(t *testing.T, err error) {
	if err != nil {
		var we *wire.Error
		if !errors.As(err, &we) || we.Code == "" {
			t.Fatalf("error %v (%T) has no code", err, err)
		}
		if we.Code == wire.CodeInternal {
			t.Fatalf("internal error: %v", err)
		}
	}
	after := snapshot(t, fe.sentinel)
	for k, v := range fe.before {
		if after[k] != v {
			t.Fatalf("sentinel %s changed", k)
		}
	}
	if len(after) != len(fe.before) {
		t.Fatalf("sentinel gained entries")
	}
}

// FuzzHandlePath sends random paths in every path argument of every func:
// never a panic, never an uncoded error, never a change outside the root.
func FuzzHandlePath(f *testing.F) {
	for i, p := range []string{"", "/", "a/f.txt", "../sentinel/secret", "out/secret", "a/b/up", "abs/secret",
		"in/f.txt", "a\x00b", `..\x`, "x.key", "locked/x", "/a/../../x", strings.Repeat("a/", 100)} {
		f.Add(uint8(i), p)
	}
	fe := newFuzzEnv(f)
	f.Fuzz(func(t *testing.T, slotIdx uint8, p string) {
		fe.fixtures()
		s := pathSlots[int(slotIdx)%len(pathSlots)]
		args := slotArgs(s, p)
		msg := map[string]any{"func": s.fn}
		for k, v := range args {
			msg[k] = v
		}
		req := wire.Request{Func: s.fn, Args: mustJSON(t, msg)}
		_, err := fe.m.Handle(context.Background(), req)
		fe.check(t, err)
		if rel, err := cleanPath(p); err == nil {
			if strings.Contains("/"+rel+"/", "/../") || strings.HasPrefix(rel, "/") || strings.IndexByte(rel, 0) >= 0 {
				t.Fatalf("cleanPath(%q) = %q", p, rel)
			}
		}
	})
}

// FuzzExtract feeds random archive bytes to fm_extract: never a panic,
// never a change outside the root, never a symlink created.
func FuzzExtract(f *testing.F) {
	f.Add(false, []byte("PK\x05\x06"+strings.Repeat("\x00", 18)))
	f.Add(true, []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	fe := newFuzzEnv(f)
	f.Fuzz(func(t *testing.T, tgz bool, data []byte) {
		name := "in.zip"
		if tgz {
			name = "in.tgz"
		}
		must(t, os.WriteFile(filepath.Join(fe.root, name), data, 0o644))
		dest := filepath.Join(fe.root, "dest")
		defer os.RemoveAll(dest)
		req := wire.Request{Func: "fm_extract", Args: mustJSON(t, map[string]any{"path": name, "to": "dest"})}
		_, err := fe.m.Handle(context.Background(), req)
		fe.check(t, err)
		_ = filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type()&fs.ModeSymlink != 0 {
				t.Fatalf("extraction created symlink %s", p)
			}
			return nil
		})
	})
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return b
}
