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

// ownerOf returns the owner of fi.
func ownerOf(fi fs.FileInfo) (uid, gid int, ok bool) {
	if fi == nil {
		return 0, 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// chownFile gives f the owner of like when the agent runs as root, so a
// file the file manager writes stays the game's. Best effort.
func chownFile(f *os.File, like fs.FileInfo) {
	if uid, gid, ok := ownerOf(like); ok && os.Geteuid() == 0 {
		_ = f.Chown(uid, gid)
	}
}

// chownPath is chownFile for a path inside r, not following a final symlink.
func chownPath(r *os.Root, rel string, like fs.FileInfo) {
	if uid, gid, ok := ownerOf(like); ok && os.Geteuid() == 0 {
		_ = r.Lchown(rel, uid, gid)
	}
}
