package redact

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"nats://127.0.0.1:4222", "nats://127.0.0.1:4222"},
		{"nats://user:s3cret@h:4222", "nats://xxxxx@h:4222"},
		{"nats://TOKEN@h:4222", "nats://xxxxx@h:4222"},
		{"tls://user:p%40ss@h", "tls://xxxxx@h"},
		// An unescaped '/' cuts the authority short: url.Parse sees host
		// "user", port "12" and a path holding the rest of the password.
		{"nats://user:12/after-slash@h:4222", "nats://xxxxx@h:4222"},
		{"nats://user:pa?ss#x@h:4222", "nats://xxxxx@h:4222"},
		{"nats://user:p@ss@h:4222", "nats://xxxxx@h:4222"},
		{"nats://user:100%@h:4222", "nats://xxxxx@h:4222"}, // does not parse
		{"user:pw@h:4222", "xxxxx@h:4222"},                 // no scheme
		{"wss://u:p@h:443/ws/path", "wss://xxxxx@h:443/ws/path"},
		{"", ""},
		{"not a url", "not a url"},
	}
	for _, tc := range cases {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestList(t *testing.T) {
	cases := []struct{ in, want string }{
		{"nats://a:1, nats://u:p@b:2 ,tls://c", "nats://a:1, nats://xxxxx@b:2 ,tls://c"},
		{"nats://10.0.0.1:4222,10.0.0.2:4222", "nats://10.0.0.1:4222,10.0.0.2:4222"},
		// A password with a comma breaks the list apart: hidden as a whole.
		{"nats://u:p,ss@b:2,nats://c:3", "nats://xxxxx@b:2,nats://c:3"},
		{"nats://u:12/x,y@b:2", "nats://xxxxx@b:2"},
		{"", ""},
	}
	for _, tc := range cases {
		if got := List(tc.in); got != tc.want {
			t.Errorf("List(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	got := Strings([]string{"nats://a:1", "nats://u:p/q@b:2"})
	if strings.Join(got, " ") != "nats://a:1 nats://xxxxx@b:2" {
		t.Errorf("Strings = %q", got)
	}
}

// FuzzURL puts a password (seeded with /@:%?# in testdata/fuzz/FuzzURL)
// into URLs of every kind the agent and ether show, alone and in a list,
// and checks the output never contains it.
func FuzzURL(f *testing.F) {
	f.Add("user", "s3cret")
	f.Add("u", "a/b@c:d%e?f#g")
	f.Fuzz(func(t *testing.T, user, pw string) {
		pw = strings.ReplaceAll(pw, ",", "") // a comma separates URLs (see List)
		user = strings.ReplaceAll(user, ",", "")
		forms := []struct{ in, public string }{
			{"nats://" + user + ":" + pw + "@host.example:4222", "nats://xxxxx@host.example:4222"},
			{"tls://" + pw + "@host.example:4222/", "tls://xxxxx@host.example:4222/"},
			{"wss://" + user + ":" + pw + "@host.example:443/ws", "wss://xxxxx@host.example:443/ws"},
		}
		for _, fm := range forms {
			check(t, pw, fm.public, URL(fm.in))
			list := "nats://a.example:1," + fm.in + ",nats://b.example:3"
			check(t, pw, "nats://a.example:1,"+fm.public+",nats://b.example:3", List(list))
		}
	})
}

// check fails when out shows pw; a pw that is part of the text every
// redaction keeps (public) cannot be told apart and is skipped.
func check(t *testing.T, pw, public, out string) {
	t.Helper()
	if len(pw) < 2 || strings.Contains(public, pw) {
		return
	}
	if strings.Contains(out, pw) {
		t.Fatalf("redacted %q still holds the password %q", out, pw)
	}
}
