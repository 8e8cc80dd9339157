package proto

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The hex examples in docs/world-protocol.md are real frames: each decodes
// to the message its comment names, in its direction.
func TestDocs_HexExamplesDecode(t *testing.T) {
	doc, err := os.ReadFile("../../docs/world-protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	// A frame line: an optional "client →", "world  →" or "|" lead, then
	// hex groups (the length first), then the message's name.
	line := regexp.MustCompile(`(?m)^(client →|world  →|       \||)\s*((?:[0-9a-f]{2,16}(?:[ |]+|$))+)\s*([A-Za-z]+)?`)
	want := []struct{ dir, name string }{
		{"client", "Login"},
		{"world", "LoginResponse"}, {"world", "MapInfo"}, {"world", "Position"},
		{"world", "ChatSettingsNow"}, {"world", "FriendStatus"}, {"world", "IgnoreList"},
		{"world", "FriendListLoaded"},
		{"world", "Nearby"},
	}
	var got []string
	dir := "world"
	for _, m := range line.FindAllStringSubmatch(string(doc), -1) {
		hexText := strings.TrimSpace(m[2])
		if !strings.HasPrefix(hexText, "00") || len(strings.Fields(hexText)) < 2 {
			continue // not a frame (a value table, a tile layout)
		}
		if strings.HasPrefix(m[1], "client") {
			dir = "client"
		} else if m[1] != "" {
			dir = "world"
		}
		p, err := DecodeFrame(hx(hexText))
		if err != nil {
			t.Errorf("%q: %v", hexText, err)
			continue
		}
		var name string
		if dir == "client" {
			msg, err := DecodeClient(p)
			if err != nil {
				t.Errorf("%q: %v", hexText, err)
				continue
			}
			name = msg.Op().String()
		} else {
			msg, err := DecodeWorld(p)
			if err != nil {
				t.Errorf("%q: %v", hexText, err)
				continue
			}
			name = msg.Op().String()
		}
		got = append(got, dir+" "+name)
	}
	var wantS []string
	for _, w := range want {
		wantS = append(wantS, w.dir+" "+w.name)
	}
	if strings.Join(got, ", ") != strings.Join(wantS, ", ") {
		t.Errorf("the document's frames decode as\n%v\nwant\n%v", got, wantS)
	}
}

// The document's name37 values are what EncodeName computes.
func TestDocs_Name37Values(t *testing.T) {
	doc, err := os.ReadFile("../../docs/world-protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"zezima":   "v = 49017391 × 37 +  1 = %d ",
		"iron_man": "`iron_man` = %d ",
		"bob":      "`bob` = %d,",
		"a b":      "`a b` = `a_b` = %d,",
		"1abc":     "`1abc` = %d.",
		"ab":       "`ab` = %d,",
		"a":        "`a` = %d,",
	} {
		v, err := EncodeName(name)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(text, v); !strings.Contains(string(doc), want) {
			t.Errorf("the document does not say %q", want)
		}
	}
	if !strings.Contains(string(doc), fmt.Sprint(MaxName37)) {
		t.Errorf("the document does not give the largest value %d", MaxName37)
	}
}

// docAlias is the document's name for a world message whose Go name differs
// (the document says so under "World → client").
var docAlias = map[string]string{"ChatSettingsNow": "ChatSettings", "LoggedOut": "Logout"}

// Every row of the document's Examples table is a real frame: it decodes in
// its direction to the message the row names, and encoding that message
// gives the row's bytes again.
func TestDocs_ExamplesTableRoundTrips(t *testing.T) {
	doc, err := os.ReadFile("../../docs/world-protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "\n### Examples\n")
	if !ok {
		t.Fatal(`the document has no "### Examples" section`)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([0-9a-f ]+)` \\| (client|world) → (?:world|client|[a-z]+) \\| ([A-Za-z]+)")
	rows := row.FindAllStringSubmatch(table, -1)
	if len(rows) < 19 {
		t.Fatalf("found %d example rows, want at least 19: has the table's layout changed?", len(rows))
	}
	for _, r := range rows {
		hexText, dir, name := r[1], r[2], r[3]
		frame := hx(hexText)
		p, err := DecodeFrame(frame)
		if err != nil {
			t.Errorf("%q: %v", hexText, err)
			continue
		}
		var msg Message
		var got string
		if dir == "client" {
			m, err := DecodeClient(p)
			if err != nil {
				t.Errorf("%q (client → world): %v", hexText, err)
				continue
			}
			msg, got = m, m.Op().String()
		} else {
			m, err := DecodeWorld(p)
			if err != nil {
				t.Errorf("%q (world → client): %v", hexText, err)
				continue
			}
			msg, got = m, m.Op().String()
		}
		if alias, ok := docAlias[got]; ok && dir == "world" {
			got = alias
		}
		if got != name {
			t.Errorf("%q (%s) decodes as %s, the row says %s", hexText, dir, got, name)
		}
		again, err := AppendFrame(nil, msg)
		if err != nil {
			t.Errorf("%q: re-encoding %#v: %v", hexText, msg, err)
			continue
		}
		if !bytes.Equal(again, frame) {
			t.Errorf("%q re-encodes as % x", hexText, again)
		}
	}
}
