package etherlink_test

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/etherlink"
)

// With a token, the client links only to a listener that proves it knows
// the token. Silence, a proof for another token, an echo of the nonce or
// another frame are refused: the client never counts the link up, never
// sends the token, WorldRegister, its WorldInfo or anything else, and names the listener's process (the
// test's own) once.
func TestClient_Proof_AListenerThatCannotProveIsRefused(t *testing.T) {
	tests := []struct {
		name   string
		answer func(s *side, ch proto.LinkChallenge) // nil: say nothing
	}{
		{"silence", nil},
		{"a proof for another token", func(s *side, ch proto.LinkChallenge) {
			s.send(proto.LinkProof{MAC: proto.ProveLink([]byte("theirs"), ch.Nonce)})
		}},
		{"the nonce echoed", func(s *side, ch proto.LinkChallenge) { s.send(proto.LinkProof{MAC: ch.Nonce}) }},
		{"another frame", func(s *side, ch proto.LinkChallenge) { s.send(proto.LoginCheckResponse{User37: 1, Allowed: true}) }},
		{"a frame that does not decode", func(s *side, ch proto.LinkChallenge) { s.raw([]byte{0, 1, 99}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPeer(t)
			log, lines := recordingLogger(t)
			c := startClient(t, etherlink.Config{Addr: p.addr(), NodeID: 10, Token: []byte("ours"),
				Info:         proto.WorldInfo{License: []byte("lic-a"), Instance: []byte("world10"), PublicURL: []byte("http://h:8080/client?world=1")},
				ProofTimeout: 200 * time.Millisecond, Backoff: fastBackoff, Logger: log})
			for range 3 {
				s := p.accept()
				ch, ok := s.next().(proto.LinkChallenge)
				if !ok {
					t.Fatal("the first frame is not a LinkChallenge")
				}
				if tt.answer != nil {
					tt.answer(s, ch)
				}
				// The client hangs up without sending anything more: not
				// the token, not WorldRegister, not who the world is.
				_ = s.nc.SetReadDeadline(time.Now().Add(wait))
				if b, err := s.r.ReadByte(); !errors.Is(err, io.EOF) {
					t.Fatalf("after the challenge the client sent %#x (%v), want it to hang up", b, err)
				}
			}
			if st := c.Stats(); st.Up || st.Connects != 0 {
				t.Fatalf("stats %+v: linked to a listener without proof", st)
			}
			if c.Send(proto.LoginCheck{User37: 1}) {
				t.Fatal("Send succeeded without a proved link")
			}
			poll.True(t, wait, "the listener named", func() bool { return lines.count("holder_pid=") == 1 })
			if n := lines.count("not this world's sidecar"); n != 1 {
				t.Fatalf("the foreign listener named %d times, want once", n)
			}
		})
	}
}

// Every outbound message of ether/proto's table reaches the engine as an
// event: a LinkProof arriving on a linked connection (the one message the
// client's own copying used to miss, counting it as malformed) is
// delivered like any other, not dropped.
func TestClient_EveryOutboundMessageIsDelivered(t *testing.T) {
	p := newPeer(t)
	c := startClient(t, etherlink.Config{Addr: p.addr(), NodeID: 10})
	s := p.accept()
	s.expect(proto.WorldRegister{NodeID: 10})
	expectKind(t, c, etherlink.Connected)
	late := proto.LinkProof{MAC: [proto.NonceLen]byte{7}}
	s.send(late, proto.FriendListComplete{Target37: 3})
	awaitMsg(t, c, late)
	awaitMsg(t, c, proto.FriendListComplete{Target37: 3})
	if st := c.Stats(); st.Malformed != 0 {
		t.Fatalf("stats %+v: a message of the table counted as malformed", st)
	}
}
