package natsconn

import (
	"slices"
	"strings"
	"testing"
)

func TestURLs(t *testing.T) {
	if got := URLs(" nats://a:1, ,b:2,"); !slices.Equal(got, []string{"nats://a:1", "b:2"}) {
		t.Fatalf("URLs = %q", got)
	}
}

func TestWithScheme(t *testing.T) {
	for in, want := range map[string]string{"a:4222": "nats://a:4222", "tls://a": "tls://a", "ws://a:80": "ws://a:80"} {
		if got := WithScheme(in); got != want {
			t.Errorf("WithScheme(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"nats://127.0.0.1:4222", ""},
		{"tls://user:pw@nats.example", ""},
		{"wss://nats.example/path", ""},
		{"http://nats.example:4222", `has scheme "http" (want nats, tls, ws, wss)`},
		{"nats://", "has no host"},
		{"nats://:4222", "has no host"},
		{"nats://a b:1", "is not a URL"},
	} {
		err := CheckURL(tc.in)
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("CheckURL(%q) = %v, want %q", tc.in, err, tc.err)
		}
	}
}
