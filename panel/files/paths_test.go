package files

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanPath(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"", "", true},
		{"/", "", true},
		{".", "", true},
		{"cfg/server.cfg", "cfg/server.cfg", true},
		{"/cfg//server.cfg/", "cfg/server.cfg", true},
		{"./a/./b", "a/b", true},
		{"../x", "", false},
		{"a/../../x", "", false},
		{"a/..", "", false},
		{"a\\b", "", false},
		{"a\x00b", "", false},
		{"\xff.txt", "", false},
		{"cfg\xc3/a.txt", "", false},
		{"é/ü.txt", "é/ü.txt", true},
		{"a\nb", "", false},
		{strings.Repeat("a", MaxPathBytes+1), "", false},
		{"..a/b..", "..a/b..", true},
	}
	for _, tc := range cases {
		got, err := CleanPath(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestSameFolder(t *testing.T) {
	cases := []struct{ from, to, want string }{
		{"maps/a.txt", "b.txt", "maps/b.txt"},
		{"maps/a.txt", "other/b.txt", "other/b.txt"},
		{"maps/a.txt", "/b.txt", "b.txt"},
		{"a.txt", "b.txt", "b.txt"},
	}
	for _, tc := range cases {
		if got, err := sameFolder(tc.from, tc.to, "rename"); err != nil || got != tc.want {
			t.Errorf("sameFolder(%q, %q) = %q, %v; want %q", tc.from, tc.to, got, err, tc.want)
		}
	}
}

// FuzzCleanPath: whatever an operator sends, a clean path never climbs
// out, never holds an empty, "." or ".." segment or bytes that are not
// UTF-8, and cleaning is stable.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"", "/", "a/b", "../x", "a//b/", "a\\b", "./.", "a/..b", "\x00", "\xff.txt"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := CleanPath(s)
		if err != nil {
			return
		}
		if strings.HasPrefix(c, "/") || strings.HasSuffix(c, "/") || !utf8.ValidString(c) {
			t.Fatalf("%q cleaned to %q", s, c)
		}
		if c != "" {
			for _, seg := range strings.Split(c, "/") {
				if seg == "" || seg == "." || seg == ".." {
					t.Fatalf("%q cleaned to %q with segment %q", s, c, seg)
				}
			}
		}
		if again, err := CleanPath(c); err != nil || again != c {
			t.Fatalf("cleaning %q again gave %q, %v", c, again, err)
		}
	})
}
