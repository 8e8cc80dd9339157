package installer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstall_NewBinary_ReplacesOnlyTheBinary: install from a newer
// binary (the upgrade path) replaces /usr/local/bin/corrosion-agent and
// changes nothing else.
func TestInstall_NewBinary_ReplacesOnlyTheBinary(t *testing.T) {
	needRoot(t)
	root := seedRoot(t)
	bin, _ := fakeAgent(t)
	run(t, Install, Options{Root: root, Binary: bin})
	before := snapshot(t, root)
	newer := filepath.Join(t.TempDir(), "corrosion-agent")
	data := []byte("#!/bin/sh\necho corrosion-agent v2\n")
	if err := os.WriteFile(newer, data, 0o700); err != nil {
		t.Fatal(err)
	}
	out := run(t, Install, Options{Root: root, Binary: newer})
	if !strings.Contains(out, "install "+newer+" as /usr/local/bin/corrosion-agent 0755 root:root") {
		t.Errorf("output:\n%s", out)
	}
	// The binary is replaced by a rename, which also touches its
	// directory's modification time.
	d := diffSnapshots(before, snapshot(t, root))
	if len(d) != 2 || !strings.HasPrefix(d[0], "changed usr/local/bin/corrosion-agent:") ||
		!strings.HasPrefix(d[1], "changed usr/local/bin: drwxr-xr-x 0:0") {
		t.Fatalf("want only the binary changed, got:\n%s", strings.Join(d, "\n"))
	}
	fi, err := os.Stat(filepath.Join(root, BinaryPath))
	if got, _ := os.ReadFile(filepath.Join(root, BinaryPath)); err != nil || string(got) != string(data) || fi.Mode().Perm() != 0o755 {
		t.Errorf("installed binary: %v %q", err, got)
	}
}

// TestInstall_ExistingGroup_UserJoinsIt: a corrosion group made before
// (by hand, by a package) is reused, not an error.
func TestInstall_ExistingGroup_UserJoinsIt(t *testing.T) {
	needRoot(t)
	root := seedRoot(t)
	for _, f := range []struct{ name, line string }{{"group", "corrosion:x:1234:\n"}, {"gshadow", "corrosion:!::\n"}} {
		p := filepath.Join(root, "etc", f.name)
		old, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(old, f.line...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin, _ := fakeAgent(t)
	out := run(t, Install, Options{Root: root, Binary: bin})
	acc, err := lookupAccountFiles(filepath.Join(root, "etc/passwd"), filepath.Join(root, "etc/group"))
	if err != nil || !acc.userFound || acc.gid != 1234 {
		t.Fatalf("account %+v, %v; want the user in gid 1234\n%s", acc, err, out)
	}
	passwd, _ := os.ReadFile(filepath.Join(root, "etc/passwd"))
	if !strings.Contains(string(passwd), ":1234:") {
		t.Errorf("passwd:\n%s", passwd)
	}
}
