package engine

import (
	"errors"
	"testing"

	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

func TestSave_RoundTripAndRejectsGarbage(t *testing.T) {
	s := save{Pos: terrain.Point{X: 300, Y: 7}, Chat: proto.ChatSettings{Public: 1, Private: 2, Trade: 0}}
	b := s.encode()
	if len(b) != saveLen {
		t.Fatalf("%d bytes", len(b))
	}
	got, ok, err := decodeSave(b)
	if err != nil || !ok || got != s {
		t.Fatalf("decode = %+v %v %v", got, ok, err)
	}
	if _, ok, err := decodeSave(nil); ok || err != nil {
		t.Fatalf("empty: %v %v, want a new player", ok, err)
	}
	bad := map[string][]byte{
		"garbage":    []byte("hello world!"),
		"short":      b[:5],
		"long":       append(append([]byte{}, b...), 0),
		"version 2":  append([]byte("CWSV\x02"), b[5:]...),
		"bad mode":   append(append([]byte{}, b[:11]...), 3),
		"magic only": []byte("CWSV"),
	}
	for name, blob := range bad {
		t.Run(name, func(t *testing.T) {
			if _, ok, err := decodeSave(blob); ok || !errors.Is(err, ErrBadSave) {
				t.Fatalf("decode %q = %v, %v; want ErrBadSave", blob, ok, err)
			}
		})
	}
}

func TestWordFilter(t *testing.T) {
	f := newWordFilter([]string{"darn", "Heck", ""})
	cases := map[string]string{
		"darn it":             "**** it",
		"DaRn, what the HECK": "****, what the ****",
		"darndarn":            "********",
		"nothing here":        "nothing here",
		"dar":                 "dar",
		"héck darn é":         "héck **** é",
	}
	for in, want := range cases {
		if got := string(f.apply([]byte(in))); got != want {
			t.Errorf("filter(%q) = %q, want %q", in, got, want)
		}
	}
}
