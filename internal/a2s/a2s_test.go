package a2s_test

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/a2s"
	"github.com/corrosion/corrosion/internal/a2s/a2stest"
)

// rust is an info reply like a Rust server's, with every extra field.
var rust = a2s.Info{
	Protocol: 17, Name: "Main 2x Vanilla", Map: "Procedural Map", Folder: "rust", Game: "Rust",
	AppID: 0, Players: 42, MaxPlayers: 100, Bots: 0, ServerType: 'd', Environment: 'l', VAC: true,
	Version: "2590", EDF: 0x80 | 0x10 | 0x40 | 0x20 | 0x01, Port: 28015, SteamID: 90200000000000001,
	SpectatorPort: 28020, SpectatorName: "tv", Keywords: "mp100,cp42,ptrak,qp0,v2590,born1700000000", GameID: 252490,
}

func TestDecodeRoundTrip(t *testing.T) {
	cases := map[string]a2s.Info{
		"full":      rust,
		"no extras": {Protocol: 17, Name: "x", Map: "m", Folder: "f", Game: "g", AppID: 440, Players: 1, MaxPlayers: 2, ServerType: 'd', Environment: 'w', Private: true, Version: "1.0"},
		"the ship":  {Name: "ship", AppID: 2400, Ship: [3]byte{1, 2, 3}, Version: "v", EDF: 0x80, Port: 27015},
		"utf8 name": {Name: "Ржавчина ☢ 2x", Version: "1"},
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := a2s.Decode(a2s.AppendInfo(nil, in))
			if err != nil {
				t.Fatal(err)
			}
			if r.Info == nil || !reflect.DeepEqual(*r.Info, in) {
				t.Fatalf("decoded %+v, want %+v", r.Info, in)
			}
		})
	}
	r, err := a2s.Decode(a2s.AppendChallenge(nil, [4]byte{9, 8, 7, 6}))
	if err != nil || string(r.Challenge) != "\x09\x08\x07\x06" || r.Info != nil {
		t.Fatalf("challenge: %+v, %v", r, err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	full := a2s.AppendInfo(nil, rust)
	noEDF := a2s.AppendInfo(nil, a2s.Info{Name: "n", Version: "v"})
	badName := a2s.AppendInfo(nil, a2s.Info{Name: "ab", Version: "v"})
	badName[7] = 0xff // the name's second byte: not UTF-8
	cases := []struct {
		name string
		pkt  []byte
		want string
	}{
		{"empty", nil, "truncated at byte 0"},
		{"short header", []byte{0xff, 0xff}, "truncated"},
		{"split", []byte{0xfe, 0xff, 0xff, 0xff, 1, 2, 3}, "multi-packet reply refused"},
		{"bad header", []byte{1, 2, 3, 4, 0x49}, "header 04030201"},
		{"no type", []byte{0xff, 0xff, 0xff, 0xff}, "truncated at byte 4"},
		{"unknown type", []byte{0xff, 0xff, 0xff, 0xff, 0x44}, "type 0x44"},
		{"goldsource", []byte{0xff, 0xff, 0xff, 0xff, 0x6d}, "obsolete GoldSource"},
		{"short challenge", []byte{0xff, 0xff, 0xff, 0xff, 0x41, 1, 2}, "challenge needs 4 bytes, 2 left"},
		{"long challenge", []byte{0xff, 0xff, 0xff, 0xff, 0x41, 1, 2, 3, 4, 5}, "1 bytes after the last field"},
		{"truncated info", full[:len(full)-3], "game id needs 8 bytes"},
		{"missing NUL", noEDF[:len(noEDF)-1], "version at byte"},
		{"name runs off", []byte{0xff, 0xff, 0xff, 0xff, 0x49, 17, 'a', 'b'}, "name at byte 6 has no terminating NUL"},
		{"non-UTF-8 name", badName, "name at byte 6 is not valid UTF-8"},
		{"overlong packet", append(append([]byte{}, noEDF...), make([]byte, a2s.MaxPacket)...), "more than the 1400"},
		{"bad vac", setAt(noEDF, 5+1+2+1+1+1+2+5+1, 7), "vac is 7"},
		{"unknown edf bit", append(append([]byte{}, noEDF...), 0x02), "unknown bits"},
		{"trailing", append(append([]byte{}, full...), 0), "1 bytes after the last field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := a2s.Decode(c.pkt)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Decode = %v, want an error containing %q", err, c.want)
			}
			if !errors.Is(err, a2s.ErrMalformed) && !errors.Is(err, a2s.ErrSplit) {
				t.Fatalf("%v wraps neither ErrMalformed nor ErrSplit", err)
			}
		})
	}
}

// setAt returns a copy of b with b[i] = v.
func setAt(b []byte, i int, v byte) []byte {
	c := append([]byte(nil), b...)
	c[i] = v
	return c
}

func TestParseRequest(t *testing.T) {
	if c, err := a2s.ParseRequest(a2s.AppendRequest(nil, nil)); err != nil || c != nil {
		t.Fatalf("plain request: %v, %v", c, err)
	}
	if c, err := a2s.ParseRequest(a2s.AppendRequest(nil, []byte{1, 2, 3, 4})); err != nil || string(c) != "\x01\x02\x03\x04" {
		t.Fatalf("challenged request: %v, %v", c, err)
	}
	want := []byte{0xff, 0xff, 0xff, 0xff, 0x54, 'S', 'o', 'u', 'r', 'c', 'e', ' ', 'E', 'n', 'g', 'i', 'n', 'e', ' ',
		'Q', 'u', 'e', 'r', 'y', 0}
	if got := a2s.AppendRequest(nil, nil); string(got) != string(want) {
		t.Fatalf("request bytes % x, want % x", got, want)
	}
	for _, bad := range [][]byte{nil, want[:10], append(append([]byte{}, want...), 1, 2), {0xff, 0xff, 0xff, 0xff, 0x55}} {
		if _, err := a2s.ParseRequest(bad); !errors.Is(err, a2s.ErrMalformed) {
			t.Errorf("ParseRequest(% x) = %v, want ErrMalformed", bad, err)
		}
	}
}

func query(t *testing.T, addr string, timeout time.Duration) (a2s.Info, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	return a2s.Query(ctx, &net.Dialer{}, addr)
}

func TestQuery(t *testing.T) {
	for _, challenge := range []bool{false, true} {
		srv := a2stest.New(t, a2stest.Options{Info: rust, Challenge: challenge})
		in, err := query(t, srv.Addr(), 3*time.Second)
		if err != nil {
			t.Fatalf("challenge %v: %v", challenge, err)
		}
		if !reflect.DeepEqual(in, rust) {
			t.Fatalf("challenge %v: got %+v", challenge, in)
		}
		if want := map[bool]int64{false: 1, true: 2}[challenge]; srv.Requests() != want {
			t.Fatalf("challenge %v: %d requests, want %d", challenge, srv.Requests(), want)
		}
	}
}

func TestQueryFailures(t *testing.T) {
	t.Run("malformed", func(t *testing.T) {
		srv := a2stest.New(t, a2stest.Options{Raw: []byte{0xff, 0xff, 0xff, 0xff, 0x49, 17, 'x'}})
		if _, err := query(t, srv.Addr(), 3*time.Second); !errors.Is(err, a2s.ErrMalformed) {
			t.Fatalf("got %v, want ErrMalformed", err)
		}
	})
	t.Run("split", func(t *testing.T) {
		srv := a2stest.New(t, a2stest.Options{Raw: []byte{0xfe, 0xff, 0xff, 0xff, 1, 0, 0, 0, 2, 0}})
		if _, err := query(t, srv.Addr(), 3*time.Second); !errors.Is(err, a2s.ErrSplit) {
			t.Fatalf("got %v, want ErrSplit", err)
		}
	})
	t.Run("silent", func(t *testing.T) {
		srv := a2stest.New(t, a2stest.Options{Silent: true})
		start := time.Now()
		_, err := query(t, srv.Addr(), 200*time.Millisecond)
		var nerr net.Error
		if !errors.As(err, &nerr) || !nerr.Timeout() {
			t.Fatalf("got %v, want a timeout", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("a 200ms query took %v", d)
		}
	})
	t.Run("slow", func(t *testing.T) {
		srv := a2stest.New(t, a2stest.Options{Info: rust, Delay: time.Second})
		if _, err := query(t, srv.Addr(), 100*time.Millisecond); err == nil {
			t.Fatal("a reply slower than the deadline was accepted")
		}
	})
	t.Run("canceled", func(t *testing.T) {
		srv := a2stest.New(t, a2stest.Options{Silent: true})
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(50*time.Millisecond, cancel)
		if _, err := a2s.Query(ctx, &net.Dialer{}, srv.Addr()); !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
	})
	t.Run("closed port", func(t *testing.T) {
		srv := a2stest.New(t, a2stest.Options{})
		addr := srv.Addr()
		srv.Close() // nothing listens: the kernel answers ICMP port unreachable
		if _, err := query(t, addr, 3*time.Second); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Fatalf("got %v, want connection refused", err)
		}
	})
}

func FuzzDecode(f *testing.F) {
	f.Add(a2s.AppendInfo(nil, rust))
	f.Add(a2s.AppendInfo(nil, a2s.Info{Name: "n", AppID: 2400, Version: "v"}))
	f.Add(a2s.AppendChallenge(nil, [4]byte{1, 2, 3, 4}))
	f.Add([]byte{0xfe, 0xff, 0xff, 0xff})
	f.Add(binary.LittleEndian.AppendUint32(nil, 0xffffffff))
	f.Fuzz(func(t *testing.T, pkt []byte) {
		r, err := a2s.Decode(pkt)
		if err != nil {
			if r.Info != nil || r.Challenge != nil {
				t.Fatalf("error %v with a result %+v", err, r)
			}
			return
		}
		if r.Info == nil {
			if len(r.Challenge) != 4 {
				t.Fatalf("challenge of %d bytes", len(r.Challenge))
			}
			return
		}
		// A decoded info encodes back to the same packet (but for an extra
		// data flag byte of 0, which carries nothing and is not re-sent).
		want := pkt
		if r.Info.EDF == 0 && len(pkt) > 0 && pkt[len(pkt)-1] == 0 && len(a2s.AppendInfo(nil, *r.Info)) == len(pkt)-1 {
			want = pkt[:len(pkt)-1]
		}
		if got := a2s.AppendInfo(nil, *r.Info); string(got) != string(want) {
			t.Fatalf("re-encoded % x, decoded from % x", got, pkt)
		}
	})
}

func TestQueryEndlessChallenge(t *testing.T) {
	// A server that answers every request, its challenge included, with a
	// new challenge.
	srv := a2stest.New(t, a2stest.Options{Raw: a2s.AppendChallenge(nil, [4]byte{1, 2, 3, 4})})
	_, err := query(t, srv.Addr(), 3*time.Second)
	if !errors.Is(err, a2s.ErrMalformed) || !strings.Contains(err.Error(), "still challenged after 2 answers") {
		t.Fatalf("got %v, want still challenged", err)
	}
	if n := srv.Requests(); n != 3 {
		t.Fatalf("%d requests, want 3 (the first and two answers)", n)
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add(a2s.AppendRequest(nil, nil))
	f.Add(a2s.AppendRequest(nil, []byte{1, 2, 3, 4}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x54})
	f.Fuzz(func(t *testing.T, pkt []byte) {
		challenge, err := a2s.ParseRequest(pkt)
		if err != nil {
			return
		}
		// A valid request is exactly what AppendRequest writes.
		if got := a2s.AppendRequest(nil, challenge); string(got) != string(pkt) {
			t.Fatalf("re-encoded % x, parsed from % x", got, pkt)
		}
	})
}
