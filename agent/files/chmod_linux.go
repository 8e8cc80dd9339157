package files

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/corrosion/corrosion/agent/wire"
)

// chmodNoFollow changes the mode of rel without following a symlink at its
// last name, even one swapped in after the caller's check: the parent is
// opened inside the root, the name with O_PATH|O_NOFOLLOW relative to it,
// its type checked on that descriptor, and the mode set through
// /proc/self/fd (fchmod needs a readable descriptor, the file may be
// unreadable). Without /proc it falls back to a read-only O_NOFOLLOW open.
func chmodNoFollow(r *os.Root, rel string, mode fs.FileMode) error {
	dir, err := r.Open(osPath(parentRel(rel)))
	if err != nil {
		return err
	}
	defer dir.Close()
	rc, err := dir.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	err = rc.Control(func(dfd uintptr) {
		opErr = chmodAt(int(dfd), rel, mode)
	})
	if err != nil {
		return err
	}
	return opErr
}

func chmodAt(dfd int, rel string, mode fs.FileMode) error {
	name := path.Base(rel)
	fd, err := unix.Openat(dfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "chmod", Path: rel, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: "chmod", Path: rel, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if st.Nlink > 1 {
			return errChmodLinked(rel, uint64(st.Nlink))
		}
	case unix.S_IFDIR:
	case unix.S_IFLNK:
		return wire.Errorf(CodeIsASymlink, "chmod %q: is a symlink; symlinks are never followed", rel)
	default:
		return wire.Errorf(CodeNotAFile, "chmod %q: not a regular file or directory", rel)
	}
	err = unix.Fchmodat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), uint32(mode.Perm()), 0)
	if errors.Is(err, unix.ENOENT) {
		err = fchmodReadable(dfd, name, mode)
	}
	if err != nil {
		return &fs.PathError{Op: "chmod", Path: rel, Err: err}
	}
	return nil
}

// fchmodReadable is the fallback without /proc: it needs read access.
func fchmodReadable(dfd int, name string, mode fs.FileMode) error {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fchmod(fd, uint32(mode.Perm()))
}
