package login

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzLocalPath: whatever next a link carries, LocalPath returns "" or a
// path a browser resolves on this panel.
func FuzzLocalPath(f *testing.F) {
	for _, s := range []string{"/", "/hosts/a?x=1", "//evil", "/\\evil", "https://e", "/%2f%2fe", "/a/../../b", "/\t/evil", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := LocalPath(next)
		if got == "" {
			return
		}
		if !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.ContainsAny(got, "\\\r\n\t\x00") {
			t.Fatalf("LocalPath(%q) = %q", next, got)
		}
		base, _ := url.Parse("http://panel.example/login")
		u, err := base.Parse(got)
		if err != nil || u.Host != "panel.example" || u.Scheme != "http" {
			t.Fatalf("LocalPath(%q) = %q resolves to %v (%v)", next, got, u, err)
		}
	})
}
