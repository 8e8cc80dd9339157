// Package unixmode converts Go's fs.FileMode to the Unix mode bits that
// tar headers and `ls -l`'s octal use: Go keeps setuid, setgid and sticky
// in high flag bits of its own, Unix in 04000, 02000 and 01000.
package unixmode

import "io/fs"

// Bits is m's permission bits with setuid (04000), setgid (02000) and
// sticky (01000) in their Unix places; the file type is left out.
func Bits(m fs.FileMode) uint32 {
	v := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		v |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		v |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		v |= 0o1000
	}
	return v
}
