//go:build !unix

package files

import (
	"io/fs"
	"os"
)

// openNonblock is not needed where FIFOs do not block open.
const openNonblock = 0

// linkCount is 1 where os.FileInfo carries no link count (Windows): hard
// links are not detected there.
func linkCount(fs.FileInfo) uint64 { return 1 }

// ownFile does nothing where owners are not uid/gid pairs: a new file
// belongs to its creator.
func ownFile(*os.File) error { return nil }

// ownDir does nothing where owners are not uid/gid pairs.
func ownDir(*os.Root, string) error { return nil }
