package installer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"
)

// needRoot: installs chown to the corrosion user and run useradd, so they
// need root. CI runs as root and there nothing skips.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI must run the installer tests as root (they check owners and run useradd)")
	}
	t.Skip("not root: the install tests chown files and run useradd --prefix; CI runs them as root")
}

// seedRoot is a fresh install root with the account files useradd
// --prefix edits, holding only root.
func seedRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := []struct {
		name, text string
		mode       fs.FileMode
	}{
		{"passwd", "root:x:0:0:root:/root:/bin/bash\n", 0o644},
		{"group", "root:x:0:\n", 0o644},
		{"shadow", "root:*:19000:0:99999:7:::\n", 0o640},
		{"gshadow", "root:*::\n", 0o640},
	}
	if err := os.Mkdir(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(root, "etc", f.name)
		if err := os.WriteFile(p, []byte(f.text), f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// fakeAgent is the "agent binary" the tests install.
func fakeAgent(t *testing.T) (string, []byte) {
	t.Helper()
	data := []byte("#!/bin/sh\necho corrosion-agent stand-in\n")
	p := filepath.Join(t.TempDir(), "corrosion-agent")
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p, data
}

// node is one file in a snapshot.
type node struct {
	mode     fs.FileMode
	uid, gid uint32
	sum      string // sha256 of a regular file; the target of a symlink
	mtime    time.Time
}

func (n node) String() string {
	return fmt.Sprintf("%v %d:%d %.12s", n.mode, n.uid, n.gid, n.sum)
}

// snapshot walks root: every path below it with mode, owner, content and
// modification time.
func snapshot(t *testing.T, root string) map[string]node {
	t.Helper()
	out := map[string]node{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		n := node{mode: fi.Mode(), uid: st.Uid, gid: st.Gid, mtime: fi.ModTime()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			n.sum, err = os.Readlink(p)
		case fi.Mode().IsRegular():
			var data []byte
			data, err = os.ReadFile(p)
			n.sum = fmt.Sprintf("%x", sha256.Sum256(data))
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = n
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sumOf(data []byte) string { return fmt.Sprintf("%x", sha256.Sum256(data)) }

// diffSnapshots lists the paths that differ between a and b.
func diffSnapshots(a, b map[string]node) []string {
	var diffs []string
	for p, n := range a {
		if m, ok := b[p]; !ok {
			diffs = append(diffs, "removed "+p)
		} else if n.String() != m.String() || !n.mtime.Equal(m.mtime) {
			diffs = append(diffs, fmt.Sprintf("changed %s: %v %v -> %v %v", p, n, n.mtime, m, m.mtime))
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			diffs = append(diffs, "added "+p)
		}
	}
	sort.Strings(diffs)
	return diffs
}

func run(t *testing.T, do func(context.Context, Options) error, o Options) string {
	t.Helper()
	var out bytes.Buffer
	o.Out = &out
	o = withValidator(o)
	if err := do(context.Background(), o); err != nil {
		t.Fatalf("%v\noutput:\n%s", err, out.String())
	}
	return out.String()
}
