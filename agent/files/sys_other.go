//go:build !unix

package files

import (
	"io/fs"
	"os"
)

// openNonblock is not needed where FIFOs do not block open.
const openNonblock = 0

// chownFile does nothing where owners are not uid/gid pairs.
func chownFile(*os.File, fs.FileInfo) {}

// chownPath does nothing where owners are not uid/gid pairs.
func chownPath(*os.Root, string, fs.FileInfo) {}
