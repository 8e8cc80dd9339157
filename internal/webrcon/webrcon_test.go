package webrcon_test

import (
	"encoding/json"
	"testing"

	"github.com/corrosion/corrosion/internal/webrcon"
)

// TestJSON_RustFieldNames: the frames carry Rust's field names, in Rust's
// order, so that Rust's server and third-party clients read ours.
func TestJSON_RustFieldNames(t *testing.T) {
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"request", webrcon.Request{Identifier: 1001, Message: "status", Name: "WebRcon"},
			`{"Identifier":1001,"Message":"status","Name":"WebRcon"}`},
		{"frame", webrcon.Frame{Message: "ok", Identifier: -1, Type: webrcon.TypeChat},
			`{"Message":"ok","Identifier":-1,"Type":"Chat","Stacktrace":""}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got %s, want %s", b, tc.want)
			}
		})
	}
}

func TestFrame_IsReplyTo(t *testing.T) {
	cases := []struct {
		name string
		f    webrcon.Frame
		id   int64
		want bool
	}{
		{"reply", webrcon.Frame{Message: "players: 0", Identifier: 1001}, 1001, true},
		{"empty reply", webrcon.Frame{Identifier: 1001}, 1001, true},
		{"other identifier", webrcon.Frame{Message: "players: 0", Identifier: 1002}, 1001, false},
		{"broadcast", webrcon.Frame{Message: "Saving", Identifier: 0}, 1001, false},
		{"echo of the command", webrcon.Frame{Message: "[rcon] 127.0.0.1:5: status", Identifier: 1001}, 1001, false},
		{"echo prefix later in the text", webrcon.Frame{Message: "x [rcon] y", Identifier: 1001}, 1001, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.IsReplyTo(tc.id); got != tc.want {
				t.Errorf("IsReplyTo(%d) = %v, want %v", tc.id, got, tc.want)
			}
		})
	}
}
