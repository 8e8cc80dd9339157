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

// The built-ins' broadcast commands: the games known to have one (Rust's
// say over WebRCON, the Minecraft console's say, worldsrv's say), none for
// the others (their players are not warned before a stop).
func TestBuiltins_Broadcast(t *testing.T) {
	ts, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"rust": "say The end is near.", "minecraft": "say The end is near.", "worldsrv": "say The end is near."}
	for _, tp := range ts {
		got, ok := ConsoleSpec{Broadcast: tp.Run.Console.Broadcast}.BroadcastCommand("The end is near.")
		if w, has := want[tp.ID]; got != w || ok != has {
			t.Errorf("%s: broadcast %q, %v; want %q, %v", tp.ID, got, ok, w, has)
		}
	}
	data, _ := BuiltinSource("minecraft")
	tpl, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Render(&tpl, map[string]string{"JAR_URL": "https://example.com/server.jar", "JAR_SHA256": strings.Repeat("a", 64), "EULA": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if cmd, ok := s.Console.BroadcastCommand("50% {message} & done"); !ok || cmd != "say 50% {message} & done" {
		t.Errorf("rendered minecraft broadcast %q, %v", cmd, ok)
	}
}
