//go:build unix

package files

import (
	"io/fs"
	"os"
	"syscall"
)

// openNonblock keeps opening a FIFO from blocking; the type is checked on
// the open file afterwards.
const openNonblock = syscall.O_NONBLOCK

// linkCount is the number of hard links of fi's inode (1 when unknown).
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// ownerOf returns the owner of fi.
func ownerOf(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// isAgentOwned reports whether fi belongs to the agent process's
// effective user and group.
func isAgentOwned(fi fs.FileInfo) bool {
	uid, gid, ok := ownerOf(fi)
	return !ok || (uid == os.Geteuid() && gid == os.Getegid())
}

// ownFile gives f, a file the file manager just created, the agent
// process's user and group when it has others (a set-group-ID directory
// hands its group down).
func ownFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || isAgentOwned(fi) {
		return err
	}
	return f.Chown(os.Geteuid(), os.Getegid())
}

// ownDir is ownFile for a directory the file manager just created at rel
// inside r; it also drops the set-group-ID bit a set-group-ID parent hands
// down. A symlink swapped in meanwhile is not followed.
func ownDir(r *os.Root, rel string) error {
	fi, err := r.Lstat(rel)
	if err != nil || !fi.IsDir() {
		return err
	}
	if !isAgentOwned(fi) {
		if err := r.Lchown(rel, os.Geteuid(), os.Getegid()); err != nil {
			return err
		}
	}
	if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
		return chmodNoFollow(r, rel, fi.Mode().Perm())
	}
	return nil
}
