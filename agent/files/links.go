package files

import (
	"io/fs"
	"os"

	"github.com/corrosion/corrosion/agent/wire"
)

// A hard link is a second name of the same inode, and nothing on the inode
// says which directory a name is in: a link inside the root may name a file
// outside it (made by a process in the instance, or left by an operator).
// os.Root cannot see that, so the file manager refuses to
//   - change the metadata (fm_chmod) of a regular file with more than one
//     link, always: the mode belongs to every link;
//   - hand out the content (fm_read, fm_copy, fm_archive, fm_extract's
//     archive) of such a file unless the instance sets
//     files.allow_hardlinks = true (WithHardlinks).
// Writing is not affected: fm_save and fm_extract write a new file and
// rename it over the name, which detaches that name from the shared inode.

// linked reports whether fi is a regular file with more than one hard
// link, and how many it has.
func linked(fi fs.FileInfo) (uint64, bool) {
	n := linkCount(fi)
	return n, fi.Mode().IsRegular() && n > 1
}

// contentFile checks a file whose content is about to be handed out or
// copied: it must be a regular file, and not hard-linked unless the
// instance allows it. rel names it as the client did.
func (c *call) contentFile(rel string, fi fs.FileInfo) error {
	if err := regularFile(rel, fi); err != nil {
		return err
	}
	if n, ok := linked(fi); ok && !c.m.allowHardlinks {
		return wire.Errorf(CodeHardLink,
			"%q has %d hard links, so its content may be a file outside the instance root; "+
				"it is read, copied or archived only when the instance sets files.allow_hardlinks = true", rel, n)
	}
	return nil
}

// errChmodLinked refuses fm_chmod on a hard-linked regular file.
func errChmodLinked(rel string, n uint64) error {
	return wire.Errorf(CodeHardLink,
		"chmod %q: the file has %d hard links and its mode is shared by all of them, some may be outside the instance root; "+
			"refused whatever files.allow_hardlinks says", rel, n)
}

// openContent opens the file at p (named rel by the client) to hand out or
// copy its content: without blocking on a FIFO (openNonblock), and checked
// by contentFile on the open descriptor, so that a file swapped for another
// since its path was checked is caught. The caller closes the file.
func (c *call) openContent(p, rel string) (*os.File, fs.FileInfo, error) {
	f, err := c.r.OpenFile(p, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = c.contentFile(rel, fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}
