package httpx_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/panel/httpx"
)

func TestTruncate_OnRuneBoundaries(t *testing.T) {
	s := strings.Repeat("a", 99) + "é" // 101 bytes; a cut at 100 would split é
	if got := httpx.Truncate(s, 100); got != strings.Repeat("a", 99) {
		t.Fatalf("Truncate = %q", got)
	}
	if got := httpx.Truncate("café", 10); got != "café" {
		t.Fatalf("short text changed: %q", got)
	}
	if got := httpx.Truncate("éé", 1); got != "" {
		t.Fatalf("Truncate(éé, 1) = %q", got)
	}
}

func TestCheckValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    url.Values
		ok   bool
	}{
		{"text", url.Values{"q": {"café ☕"}}, true},
		{"invalid value", url.Values{"q": {"\xff\xfe"}}, false},
		{"NUL value", url.Values{"q": {"a\x00b"}}, false},
		{"invalid name", url.Values{"\xff": {"1"}}, false},
		{"split rune", url.Values{"q": {strings.Repeat("a", 99) + "é"[:1]}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := httpx.CheckValues("the address", tc.v)
			if (err == nil) != tc.ok {
				t.Fatalf("CheckValues = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && httpx.StatusOf(err) != 400 {
				t.Fatalf("status %d", httpx.StatusOf(err))
			}
		})
	}
	if got := httpx.Printable("ad\x00min\xff"); got != "admin\uFFFD" {
		t.Fatalf("Printable = %q", got)
	}
}
