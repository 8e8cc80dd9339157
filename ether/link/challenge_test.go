package link

import (
	"bufio"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/poll"
)

var testNonce = [proto.NonceLen]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}

// With a token, a LinkChallenge as the first frame is answered with the
// proof for its nonce, before anything else; the LinkAuth after it links
// the world as usual.
func TestServer_LinkToken_ChallengeIsAnsweredWithTheProof(t *testing.T) {
	s, rec, _ := tokenServer(t)
	c := dial(t, s)
	if err := proto.WriteFrame(c, proto.LinkChallenge{Nonce: testNonce}); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	proof, ok := readMsg(t, r).(*proto.LinkProof)
	if !ok || !proto.ValidProof([]byte(testToken), testNonce, proof.MAC) {
		t.Fatalf("answer %#v, want the LinkProof for the token", proof)
	}
	if s.Up() {
		t.Fatal("linked before the LinkAuth")
	}
	if _, err := c.Write(frames(t, proto.LinkAuth{Token: []byte(testToken)}, proto.PlayerLogin{User37: 3, PID: 1})); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 5*time.Second, "frame handled", func() bool { f, _ := rec.get(); return len(f) == 1 })
	if st := s.Stats(); st.Refused != 0 || st.Malformed != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// A challenge does not stand for the token: a wrong LinkAuth after it, or
// none, is refused.
func TestServer_LinkToken_ChallengeThenWrongTokenIsRefused(t *testing.T) {
	s, _, _ := tokenServer(t)
	c := dial(t, s)
	if _, err := c.Write(frames(t, proto.LinkChallenge{Nonce: testNonce}, proto.LinkAuth{Token: []byte("guess")})); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	if _, ok := readMsg(t, r).(*proto.LinkProof); !ok {
		t.Fatal("no proof")
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadByte(); err == nil {
		t.Fatal("the connection stays open after a wrong token")
	}
	poll.True(t, 5*time.Second, "refused", func() bool { return s.Stats().Refused == 1 })
	if s.Up() {
		t.Fatal("linked with a wrong token")
	}
}

// Without a token ether has nothing to prove: a LinkChallenge is ignored
// (no answer, not handed to the sessions, not malformed).
func TestServer_NoToken_ChallengeIsIgnored(t *testing.T) {
	s, rec := startServer(t)
	c := dial(t, s)
	if _, err := c.Write(frames(t, proto.LinkChallenge{Nonce: testNonce}, proto.PlayerLogin{User37: 5, PID: 2})); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 5*time.Second, "frame handled", func() bool { f, _ := rec.get(); return len(f) == 1 })
	s.Send(proto.FriendListComplete{Target37: 9})
	if m := readMsg(t, bufio.NewReader(c)); m.Op() != proto.OpFriendListComplete {
		t.Fatalf("world got %#v first, want nothing before our frame", m)
	}
	if st := s.Stats(); st.Malformed != 0 || st.Refused != 0 {
		t.Fatalf("stats %+v", st)
	}
}
