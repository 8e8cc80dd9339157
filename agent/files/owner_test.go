//go:build unix

package files

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// otherUID owns the files planted for the tests: not the agent's user.
const otherUID = 4242

// plant creates a file under the root owned by otherUID (when the test
// runs as root, as it does on the build machine) with mode, which may
// carry setuid, setgid and sticky bits.
func (e *env) plant(rel, content string, mode fs.FileMode) {
	e.t.Helper()
	e.write(rel, content)
	if os.Geteuid() == 0 {
		must(e.t, os.Chown(e.p(rel), otherUID, otherUID))
	}
	must(e.t, os.Chmod(e.p(rel), mode))
}

// plantDir is plant for a directory.
func (e *env) plantDir(rel string, mode fs.FileMode) {
	e.t.Helper()
	e.mkdir(rel)
	if os.Geteuid() == 0 {
		must(e.t, os.Chown(e.p(rel), otherUID, otherUID))
	}
	must(e.t, os.Chmod(e.p(rel), mode))
}

// checkAgentOwned fails unless rel belongs to the agent process and has
// exactly the permission bits perm (no setuid, setgid or sticky).
func (e *env) checkAgentOwned(rel string, perm fs.FileMode) {
	e.t.Helper()
	fi, err := os.Lstat(e.p(rel))
	must(e.t, err)
	st := fi.Sys().(*syscall.Stat_t)
	if int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid() {
		e.t.Errorf("%s owned by %d:%d, want the agent's %d:%d", rel, st.Uid, st.Gid, os.Geteuid(), os.Getegid())
	}
	want := perm
	if fi.IsDir() {
		want |= fs.ModeDir
	}
	if fi.Mode() != want {
		e.t.Errorf("%s has mode %v, want %v", rel, fi.Mode(), want)
	}
}

func TestSave_DropsSetIDBitsAndForeignOwner(t *testing.T) {
	e := newEnv(t)
	e.plant("suid", "#!/bin/sh\n", fs.ModeSetuid|0o755)
	e.plant("sgid", "x", fs.ModeSetgid|0o750)
	e.plant("sticky", "x", fs.ModeSticky|0o644)
	e.plantDir("shared", fs.ModeSetgid|0o775)
	e.plant("shared/old", "x", 0o664)
	e.symlink("suid", "lsuid")
	tests := []struct {
		path, check string
		perm        fs.FileMode
	}{
		{"suid", "suid", 0o755},
		{"sgid", "sgid", 0o750},
		{"sticky", "sticky", 0o644},
		{"shared/old", "shared/old", 0o664},
		{"shared/new", "shared/new", 0o644},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			e.ok("fm_save", map[string]any{"path": tt.path, "content": "echo pwned\n"})
			e.checkAgentOwned(tt.check, tt.perm)
		})
	}
	e.plant("suid", "#!/bin/sh\n", fs.ModeSetuid|0o755)
	e.ok("fm_save", map[string]any{"path": "lsuid", "content": "echo pwned\n"})
	e.checkAgentOwned("suid", 0o755)
}

func TestExtract_DropsSetIDBitsAndForeignOwner(t *testing.T) {
	for _, f := range formats {
		t.Run(f.ext, func(t *testing.T) {
			e := newEnv(t)
			e.plantDir("srv", fs.ModeSetgid|0o775)
			e.plant("srv/tool", "old", fs.ModeSetuid|0o755)
			suid := fs.ModeSetuid | fs.ModeSetgid | 0o755
			if f.ext != ".zip" {
				suid = 0o6755 // tar's own bits
			}
			f.write(t, filepath.Join(e.base, "a"+f.ext), []zipEntry{
				{name: "tool", body: "new", mode: suid},
				{name: "bin/", kind: "dir"},
				{name: "bin/run", body: "run", mode: suid},
				{name: "deep/er/file", body: "f"},
			})
			must(t, os.Rename(filepath.Join(e.base, "a"+f.ext), e.p("a"+f.ext)))
			e.ok("fm_extract", map[string]any{"path": "a" + f.ext, "to": "srv"})
			e.checkAgentOwned("srv/tool", 0o755)
			e.checkAgentOwned("srv/bin", 0o755)
			e.checkAgentOwned("srv/bin/run", 0o755)
			e.checkAgentOwned("srv/deep", 0o755)
			e.checkAgentOwned("srv/deep/er/file", 0o644)
			e.ok("fm_extract", map[string]any{"path": "a" + f.ext, "to": "srv/new/place"})
			e.checkAgentOwned("srv/new", 0o755)
			e.checkAgentOwned("srv/new/place/tool", 0o755)
		})
	}
}

func TestCopyAndMkdir_DropSetIDBitsAndForeignOwner(t *testing.T) {
	e := newEnv(t)
	e.plantDir("shared", fs.ModeSetgid|0o755)
	e.plant("shared/suid", "x", fs.ModeSetuid|0o755)
	e.ok("fm_copy", map[string]any{"from": "shared/suid", "to": "shared/copy"})
	e.checkAgentOwned("shared/copy", 0o755)
	e.ok("fm_copy", map[string]any{"from": "shared", "to": "shared2"})
	e.checkAgentOwned("shared2", 0o755)
	e.checkAgentOwned("shared2/suid", 0o755)
	e.ok("fm_mkdir", map[string]any{"path": "shared/a/b"})
	e.checkAgentOwned("shared/a", 0o755)
	e.checkAgentOwned("shared/a/b", 0o755)
	e.ok("fm_archive", map[string]any{"paths": []string{"shared/suid"}, "to": "shared/x.zip"})
	e.checkAgentOwned("shared/x.zip", 0o644)
}
