package link

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/poll"
)

const testToken = "s3cret-link-token"

// logTap is a log destination that keeps every line and passes it on to t.
type logTap struct {
	t  testing.TB
	mu sync.Mutex
	b  bytes.Buffer // guarded by mu
}

func (w *logTap) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.b.Write(p)
	w.mu.Unlock()
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

func (w *logTap) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func tokenServer(t *testing.T) (*Server, *recorder, *logTap) {
	t.Helper()
	tap := &logTap{t: t}
	log := slog.New(slog.NewTextHandler(tap, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, rec := startServerWith(t, Config{Token: []byte(testToken), AuthTimeout: 300 * time.Millisecond}, log)
	return s, rec, tap
}

// frames concatenates the frames of msgs, as one write.
func frames(t *testing.T, msgs ...proto.Message) []byte {
	t.Helper()
	var b []byte
	for _, m := range msgs {
		var err error
		if b, err = proto.AppendFrame(b, m); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// expectClosed fails unless the server closes c without sending anything.
func expectClosed(t *testing.T, c net.Conn) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("read on a refused connection = %d bytes, %v; want EOF (closed)", n, err)
	}
}

// A world with the right token gets the link; frames it sends in the same
// write as its LinkAuth are not lost, and the LinkAuth itself is not handed
// to the sessions.
func TestServer_LinkToken_RightTokenWorks(t *testing.T) {
	s, rec, _ := tokenServer(t)
	c := dial(t, s)
	if err := proto.WriteLinkAuth(c, testToken); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 5*time.Second, "link up", s.Up)
	if _, err := c.Write(frames(t, proto.LinkAuth{Token: []byte("again")}, proto.PlayerLogin{User37: 7, PID: 3})); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 5*time.Second, "frame handled", func() bool { f, _ := rec.get(); return len(f) == 1 })
	if f, _ := rec.get(); f[0] != (proto.PlayerLogin{User37: 7, PID: 3}) {
		t.Fatalf("handled %#v", f)
	}
	s.Send(proto.FriendListComplete{Target37: 9})
	if m := readMsg(t, bufio.NewReader(c)); m.Op() != proto.OpFriendListComplete {
		t.Fatalf("world got %#v", m)
	}
	if st := s.Stats(); st.Refused != 0 || st.Malformed != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// The same when the LinkAuth and the first frames share one write.
func TestServer_LinkToken_PipelinedFramesAreKept(t *testing.T) {
	s, rec, _ := tokenServer(t)
	c := dial(t, s)
	if _, err := c.Write(frames(t, proto.LinkAuth{Token: []byte(testToken)}, proto.PlayerLogin{User37: 1, PID: 1},
		proto.PlayerLogout{User37: 1})); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 5*time.Second, "both frames handled", func() bool { f, _ := rec.get(); return len(f) == 2 })
	if f, _ := rec.get(); f[0] != (proto.PlayerLogin{User37: 1, PID: 1}) || f[1].Op() != proto.OpPlayerLogout {
		t.Fatalf("handled %#v", f)
	}
}

// A connection without the right token as its first frame is closed, and
// the world that holds the link keeps it: no WorldDown, its frames still
// flow both ways, and nothing of the intruder's reaches the sessions.
func TestServer_LinkToken_RefusedConnectionDoesNotDisplaceTheWorld(t *testing.T) {
	tests := []struct {
		name  string
		first []byte // what the intruder writes; nil: nothing (it waits out AuthTimeout)
	}{
		{"wrong token", frames(t, proto.LinkAuth{Token: []byte("guess")}, proto.PlayerLogin{User37: 66, PID: 6})},
		{"right token with a byte more", frames(t, proto.LinkAuth{Token: []byte(testToken + "x")})},
		{"empty token", frames(t, proto.LinkAuth{})},
		{"no token: a seed frame first", frames(t, proto.WorldRegister{NodeID: 10}, proto.PlayerLogin{User37: 66, PID: 6})},
		{"an undecodable first frame", []byte{0, 1, 99}},
		{"an empty first frame", []byte{0, 0}},
		{"silence", nil},
		{"half a frame, then silence", []byte{0, 9, byte(proto.OpLinkAuth), 's'}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, rec, tap := tokenServer(t)
			world := dial(t, s)
			if err := proto.WriteLinkAuth(world, testToken); err != nil {
				t.Fatal(err)
			}
			poll.True(t, 5*time.Second, "world up", s.Up)

			intruder := dial(t, s)
			if tt.first != nil {
				if _, err := intruder.Write(tt.first); err != nil {
					t.Fatal(err)
				}
			}
			expectClosed(t, intruder)
			poll.True(t, 5*time.Second, "refusal counted", func() bool { return s.Stats().Refused == 1 })

			if err := proto.WriteFrame(world, proto.PlayerLogin{User37: 7, PID: 3}); err != nil {
				t.Fatal(err)
			}
			poll.True(t, 5*time.Second, "the world's frame handled", func() bool { f, _ := rec.get(); return len(f) == 1 })
			f, events := rec.get()
			if f[0] != (proto.PlayerLogin{User37: 7, PID: 3}) || !slices.Equal(events, []string{"up"}) {
				t.Fatalf("handled %#v, events %v; want only the world's frame and one up", f, events)
			}
			if !s.Send(proto.FriendListComplete{Target37: 9}) {
				t.Fatal("Send failed: the world lost the link")
			}
			if m := readMsg(t, bufio.NewReader(world)); m.Op() != proto.OpFriendListComplete {
				t.Fatalf("world got %#v", m)
			}
			logs := tap.String()
			if strings.Count(logs, "refusing a world connection") != 1 || strings.Contains(logs, testToken) ||
				strings.Contains(logs, "guess") {
				t.Fatalf("want one refusal line naming no token; logs:\n%s", logs)
			}
		})
	}
}

// A world whose link was refused may retry: the right token then replaces
// the old connection as a reconnect does without a token.
func TestServer_LinkToken_ReconnectWithTheTokenReplaces(t *testing.T) {
	s, rec, _ := tokenServer(t)
	first := dial(t, s)
	if err := proto.WriteLinkAuth(first, testToken); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 5*time.Second, "first up", s.Up)
	second := dial(t, s)
	if err := proto.WriteLinkAuth(second, testToken); err != nil {
		t.Fatal(err)
	}
	expectClosed(t, first)
	s.Send(proto.FriendListComplete{Target37: 9})
	if m := readMsg(t, bufio.NewReader(second)); m.Op() != proto.OpFriendListComplete {
		t.Fatalf("second got %#v", m)
	}
	if _, events := rec.get(); !slices.Equal(events, []string{"up", "down", "up"}) {
		t.Fatalf("events = %v", events)
	}
}

// Without a token the seed's behaviour holds, and a LinkAuth (from a world
// configured with a token its ether lacks) is accepted and ignored.
func TestServer_NoToken_LinkAuthIsIgnored(t *testing.T) {
	s, rec := startServer(t)
	c := dial(t, s)
	if _, err := c.Write(frames(t, proto.LinkAuth{Token: []byte("anything")}, proto.PlayerLogin{User37: 5, PID: 2})); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 5*time.Second, "frame handled", func() bool { f, _ := rec.get(); return len(f) == 1 })
	if f, _ := rec.get(); f[0] != (proto.PlayerLogin{User37: 5, PID: 2}) {
		t.Fatalf("handled %#v", f)
	}
	if st := s.Stats(); st.Malformed != 0 || st.Refused != 0 || st.FramesIn != 2 {
		t.Fatalf("stats %+v", st)
	}
	// A seed world (no LinkAuth at all) connecting next replaces it, as before.
	seed := dial(t, s)
	expectClosed(t, c)
	if err := proto.WriteFrame(seed, proto.PlayerLogout{User37: 5}); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 5*time.Second, "seed world's frame handled", func() bool { f, _ := rec.get(); return len(f) == 2 })
}

// Run's teardown ends an authentication under way without waiting out
// AuthTimeout.
func TestServer_LinkToken_ShutdownDuringAuthentication(t *testing.T) {
	rec := &recorder{}
	s, err := New(Config{Addr: "127.0.0.1:0", Token: []byte(testToken), AuthTimeout: time.Hour}, rec, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	waiting := dial(t, s)
	if _, err := waiting.Write([]byte{0, 5}); err != nil { // half a header's promise: authentication waits
		t.Fatal(err)
	}
	// Connections are accepted in order: once a later one is up, the first
	// one's authentication is under way.
	world := dial(t, s)
	if err := proto.WriteLinkAuth(world, testToken); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 5*time.Second, "world up", s.Up)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of its context ending")
	}
	expectClosed(t, waiting)
	expectClosed(t, world)
	if _, events := rec.get(); !slices.Equal(events, []string{"up"}) {
		t.Fatalf("events %v", events)
	}
	if st := s.Stats(); st.Refused != 0 {
		t.Fatalf("a shutdown counted as a refusal: %+v", st)
	}
}
