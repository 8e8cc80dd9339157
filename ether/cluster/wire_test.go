package cluster

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/corrosion/corrosion/ether/privacy"
)

func TestPresences_RoundTrip(t *testing.T) {
	tests := []struct {
		name string
		ps   []Presence
	}{
		{"empty", nil},
		{"on", []Presence{{User: 1, Node: 10, Mode: privacy.On}}},
		{"friends mode carries the list", []Presence{{User: 1<<64 - 1, Node: 255, Mode: privacy.Friends, Friends: []uint64{3, 4}}}},
		{"several, offline drops the list", []Presence{{User: 2, Node: 0, Mode: privacy.Friends}, {User: 3, Node: 11, Mode: privacy.Off}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			origin, got, err := parsePresences(appendPresences(nil, 10, tt.ps))
			if err != nil || origin != 10 || len(got) != len(tt.ps) {
				t.Fatalf("parse = %d %+v %v", origin, got, err)
			}
			for i := range got {
				if got[i].User != tt.ps[i].User || got[i].Node != tt.ps[i].Node || got[i].Mode != tt.ps[i].Mode ||
					!slices.Equal(got[i].Friends, tt.ps[i].Friends) {
					t.Errorf("entry %d = %+v, want %+v", i, got[i], tt.ps[i])
				}
			}
		})
	}
}

func TestPresence_VisibleNode(t *testing.T) {
	tests := []struct {
		name  string
		p     Presence
		asker uint64
		want  uint8
	}{
		{"on", Presence{Node: 10, Mode: privacy.On}, 5, 10},
		{"friends, listed", Presence{Node: 10, Mode: privacy.Friends, Friends: []uint64{5}}, 5, 10},
		{"friends, not listed", Presence{Node: 10, Mode: privacy.Friends, Friends: []uint64{6}}, 5, 0},
		{"off", Presence{Node: 10, Mode: privacy.Off, Friends: []uint64{5}}, 5, 0},
		{"offline", Presence{Node: 0, Mode: privacy.On}, 5, 0},
		{"unknown mode hides", Presence{Node: 10, Mode: 9}, 5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.VisibleNode(tt.asker); got != tt.want {
				t.Fatalf("VisibleNode = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestParseRequest(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		ok   bool
	}{
		{"query", encodeQuery(5), true},
		{"pm", encodePM(PM{Sender: 1, Level: 2, Body: []byte("x")}), true},
		{"pm without body", encodePM(PM{Sender: 1}), true},
		{"ping", []byte{kindPing}, true},
		{"presence", appendPresences([]byte{kindPresence}, 1, []Presence{{User: 1, Node: 2}}), true},
		{"empty", nil, false},
		{"short query", []byte{kindQuery, 1}, false},
		{"long ping", []byte{kindPing, 0}, false},
		{"unknown kind", []byte{'z'}, false},
		{"truncated presence", []byte{kindPresence, 1, 0, 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseRequest(tt.in)
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrMalformed)) {
				t.Fatalf("parseRequest = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func FuzzParsePresences(f *testing.F) {
	f.Add(appendPresences(nil, 10, []Presence{{User: 1, Node: 10, Mode: privacy.Friends, Friends: []uint64{2}}}))
	f.Add([]byte{1, 0, 0})
	f.Add([]byte{1, 255, 255})
	f.Fuzz(func(t *testing.T, b []byte) {
		origin, ps, err := parsePresences(b)
		if err != nil {
			return
		}
		// What parses re-encodes to the same bytes, except friend lists
		// outside Friends mode, which the encoder leaves out.
		again := appendPresences(nil, origin, ps)
		if canonical(ps) && !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs:\n in  %x\n out %x", b, again)
		}
	})
}

func canonical(ps []Presence) bool {
	for _, p := range ps {
		if len(p.Friends) > 0 && (p.Mode != privacy.Friends || p.Node == 0) {
			return false
		}
	}
	return true
}

func FuzzParseRequest(f *testing.F) {
	f.Add(encodeQuery(5))
	f.Add(encodePM(PM{Sender: 1, Level: 2, Body: []byte("hello")}))
	f.Add([]byte{kindPing})
	f.Add(appendPresences([]byte{kindPresence}, 1, []Presence{{User: 1, Node: 2}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseRequest(b)
		if err != nil {
			return
		}
		if r.kind == kindPM && !bytes.Equal(encodePM(r.pm), b) {
			t.Fatalf("PM re-encoding differs")
		}
	})
}
