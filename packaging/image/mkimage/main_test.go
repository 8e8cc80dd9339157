package main

import (
	"context"
	"strings"
	"testing"
)

func TestBadCommandLines(t *testing.T) {
	root := "../../.."
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no version", []string{"-commit", "abc", "-root", root}, "version"},
		{"no commit", []string{"-version", "1.0.0", "-root", root}, "commit"},
		{"bad version", []string{"-version", "1.0 beta", "-commit", "abc", "-root", root}, "is not a tag"},
		{"bad time", []string{"-version", "1", "-commit", "abc", "-created", "yesterday", "-root", root}, "-created"},
		{"bad platform", []string{"-version", "1", "-commit", "abc", "-platforms", "linux/s390x", "-root", root}, "linux/s390x"},
		{"platform twice", []string{"-version", "1", "-commit", "abc", "-platforms", "linux/amd64,linux/amd64", "-root", root}, "twice"},
		{"not the repository", []string{"-version", "1", "-commit", "abc", "-root", t.TempDir()}, "no go.mod"},
		{"argument", []string{"-version", "1", "-commit", "abc", "now"}, `unexpected argument "now"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut strings.Builder
			if code := run(context.Background(), c.args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), c.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), c.want)
			}
		})
	}
}

func TestMissingCACertsFails(t *testing.T) {
	var out, errOut strings.Builder
	code := run(context.Background(), []string{"-version", "1", "-commit", "abc", "-root", "../../..", "-out", t.TempDir(), "-ca-certs", "/nonexistent/ca.crt"}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "/nonexistent/ca.crt") {
		t.Fatalf("exit %d, stderr %q; want 1 naming the bundle", code, errOut.String())
	}
}
