//go:build !linux

package files

import (
	"io/fs"
	"os"

	"github.com/corrosion/corrosion/agent/wire"
)

// chmodNoFollow checks rel is not a symlink and changes its mode. Outside
// Linux a symlink swapped in between the check and the change may be
// followed, to a target that os.Root still keeps inside the root. On
// Windows only the owner-write bit has an effect (the read-only attribute).
func chmodNoFollow(r *os.Root, rel string, mode fs.FileMode) error {
	fi, err := r.Lstat(rel)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return wire.Errorf(CodeIsASymlink, "chmod %q: is a symlink; symlinks are never followed", rel)
	}
	if n, ok := linked(fi); ok {
		return errChmodLinked(rel, n)
	}
	return r.Chmod(rel, mode)
}
