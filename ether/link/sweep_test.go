package link

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/poll"
)

// sweepMaxLen bounds the payload lengths the sweeps try: past every row's
// fixed size or head (the longest, MessagePrivate's, is 22) by a few bytes,
// so each opcode is tried too short, right and too long.
const sweepMaxLen = 26

// sweepPayload is a payload of n bytes with opcode op (no opcode when n is 0).
func sweepPayload(op, n int) []byte {
	p := make([]byte, n)
	if n > 0 {
		p[0] = byte(op)
	}
	return p
}

// sweepFrame is the frame carrying sweepPayload(op, n).
func sweepFrame(op, n int) []byte {
	return append([]byte{byte(n >> 8), byte(n)}, sweepPayload(op, n)...)
}

// malformed reports whether the link must drop payload as malformed: the
// codec refuses it.
func malformed(payload []byte) bool {
	_, err := proto.DecodeInbound(payload)
	return err != nil
}

// Every opcode × every length on an open link: each frame the codec refuses
// is dropped and counted in Malformed, each other one reaches the sessions
// (LinkAuth excepted), with and without a link token.
func TestServer_Sweep_EveryMalformedFrameIsCounted(t *testing.T) {
	for _, token := range []string{"", testToken} {
		t.Run("token="+map[bool]string{true: "set", false: "none"}[token != ""], func(t *testing.T) {
			s, rec := startServerWith(t, Config{Token: []byte(token)}, testLogger(t))
			c := dial(t, s)
			var b []byte
			if token != "" {
				b = frames(t, proto.LinkAuth{Token: []byte(token)})
			}
			bad, good := 0, 0
			for op := range 256 {
				for n := range sweepMaxLen + 1 {
					if n == 0 && op > 0 {
						continue // one empty frame is enough: it has no opcode
					}
					b = append(b, sweepFrame(op, n)...)
					switch p := sweepPayload(op, n); {
					case malformed(p):
						bad++
					case proto.Op(op) != proto.OpLinkAuth:
						good++
					}
				}
			}
			// The sweep ends with a good frame: once it is handled, every
			// frame before it has been read.
			b = append(b, frames(t, proto.RefreshAll{})...)
			good++
			if _, err := c.Write(b); err != nil {
				t.Fatal(err)
			}
			poll.True(t, 10*time.Second, "every frame read", func() bool {
				f, _ := rec.get()
				return len(f) == good
			})
			if st := s.Stats(); st.Malformed != uint64(bad) {
				t.Fatalf("malformed = %d of %d malformed frames (%d good ones handled)", st.Malformed, bad, good)
			}
			t.Logf("%d malformed frames counted, %d handled", bad, good)
		})
	}
}

// With a link token, a malformed first frame is dropped (and the
// connection refused): it is counted in Malformed too.
func TestServer_Sweep_MalformedFirstFramesAreCounted(t *testing.T) {
	s, _ := startServerWith(t, Config{Token: []byte(testToken), AuthTimeout: 5 * time.Second}, testLogger(t))
	bad := 0
	for op := range 256 {
		for _, n := range []int{0, 1, 2, 9, 10, 11, 17, 18, 22} {
			p := sweepPayload(op, n)
			if !malformed(p) || (n == 0 && op > 0) {
				continue
			}
			c := dial(t, s)
			if _, err := c.Write(sweepFrame(op, n)); err != nil {
				t.Fatal(err)
			}
			bad++
			expectClosed(t, c)
			c.Close()
		}
	}
	poll.Until(t, 10*time.Second, func() error {
		if st := s.Stats(); st.Malformed != uint64(bad) || st.Refused != uint64(bad) {
			return fmt.Errorf("malformed %d, refused %d of %d malformed first frames", st.Malformed, st.Refused, bad)
		}
		return nil
	})
}

// A frame cut short by the end of the connection (its header promised more
// than came) is dropped: counted in Malformed, on a linked connection and
// as the first frame of one that must present a token.
func TestServer_CutFrameIsCounted(t *testing.T) {
	cut := sweepFrame(int(proto.OpPlayerLogin), 11)[:7]
	tests := []struct {
		name   string
		token  string
		before []byte
	}{
		{"linked, no token", "", nil},
		{"linked after the token", testToken, frames(t, proto.LinkAuth{Token: []byte(testToken)})},
		{"the first frame, token required", testToken, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := startServerWith(t, Config{Token: []byte(tt.token)}, testLogger(t))
			c := dial(t, s)
			if _, err := c.Write(append(tt.before, cut...)); err != nil {
				t.Fatal(err)
			}
			if tt.token == "" || tt.before != nil {
				poll.True(t, 5*time.Second, "linked", s.Up)
			}
			_ = c.(*net.TCPConn).CloseWrite()
			poll.Until(t, 10*time.Second, func() error {
				if n := s.Stats().Malformed; n != 1 {
					return fmt.Errorf("malformed %d, want 1", n)
				}
				return nil
			})
		})
	}
}
