package unixmode

import (
	"io/fs"
	"testing"
)

func TestBits(t *testing.T) {
	for _, c := range []struct {
		m    fs.FileMode
		want uint32
	}{
		{0o644, 0o644},
		{fs.ModeDir | 0o755, 0o755},
		{fs.ModeSetuid | 0o755, 0o4755},
		{fs.ModeSetgid | 0o750, 0o2750},
		{fs.ModeDir | fs.ModeSticky | 0o777, 0o1777},
		{fs.ModeSymlink | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky | 0o700, 0o7700},
	} {
		if got := Bits(c.m); got != c.want {
			t.Errorf("Bits(%v) = %04o; want %04o", c.m, got, c.want)
		}
	}
}
