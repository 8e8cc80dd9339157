package peerkey

import (
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	cases := map[string]string{
		"192.0.2.1:40000":               "192.0.2.1",
		"192.0.2.1":                     "192.0.2.1",
		"[::ffff:192.0.2.1]:1":          "192.0.2.1",
		"::ffff:192.0.2.1":              "192.0.2.1",
		"[2001:db8:1:2:3:4:5:6]:9":      "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1":          "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1%eth0]:9": "2001:db8:1:2::/64",
		"fe80::1%eth0":                  "fe80::/64",
		"not an address":                "not an address",
		"":                              "",
	}
	for in, want := range cases {
		if got := Of(in); got != want {
			t.Errorf("Of(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzOf: any input gets a key, and the key of an address's key is the
// key itself for IPv4 (an IPv6 key is a prefix, not an address).
func FuzzOf(f *testing.F) {
	for _, s := range []string{"192.0.2.1:40000", "[::1]:9", "fe80::1%eth0", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := Of(s)
		if k != s && Of(k) != k && !strings.HasSuffix(k, "/64") {
			t.Fatalf("Of(%q) = %q, whose own key is %q", s, k, Of(k))
		}
	})
}
