package template

import (
	"strings"
	"testing"
)

// TestBuiltins_ParseAndValidate: every embedded template parses, validates,
// is named by its file, and the list holds each game the issue names.
func TestBuiltins_ParseAndValidate(t *testing.T) {
	ts, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tp := range ts {
		ids = append(ids, tp.ID)
		if err := tp.Validate(); err != nil {
			t.Errorf("%s: %v", tp.ID, err)
		}
		if _, ok := BuiltinSource(tp.ID); !ok {
			t.Errorf("%s: no source", tp.ID)
		}
	}
	want := "conan ether minecraft minetest rust soulmask valheim worldsrv"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("built-ins %q, want %q", got, want)
	}
}
