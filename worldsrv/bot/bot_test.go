package bot_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/bot"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

func dial(t *testing.T, addr, name string) *bot.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := bot.Dial(ctx, addr, name, "secret")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestClient_Login_ParsesSequence(t *testing.T) {
	addr := startWorld(t)
	c := dial(t, addr, "alice")
	st := c.State()
	if st.Node != 10 || st.PID == 0 || st.Map.Width != 256 || st.Map.Height != 256 {
		t.Fatalf("state after login %+v", st)
	}
	if st.Position.X == 0 && st.Position.Y == 0 {
		t.Fatalf("no Position parsed: %+v", st.Position)
	}
	if st.Friends == nil || len(st.Friends) != 0 || len(st.Ignores) != 0 {
		t.Fatalf("friends %v ignores %v, want empty", st.Friends, st.Ignores)
	}
	if st.Chat != (proto.ChatSettingsNow{}) {
		t.Fatalf("chat settings %+v, want all on", st.Chat)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.Logout(ctx); err != nil {
		t.Fatal(err)
	}
	if lo := c.State().LoggedOut; lo == nil || *lo != proto.LogoutRequested {
		t.Fatalf("LoggedOut %v, want requested", lo)
	}
	if err := c.Walk(1, 1); !errors.Is(err, bot.ErrClosed) {
		t.Fatalf("Walk after Logout: %v, want ErrClosed", err)
	}
}

func TestClient_Login_Refused(t *testing.T) {
	addr := startWorld(t)
	dial(t, addr, "alice")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err := bot.Dial(ctx, addr, "alice", "secret")
	var le *bot.LoginError
	if !errors.Is(err, bot.ErrLoginRefused) || !errors.As(err, &le) || le.Code != proto.LoginAlreadyOnline {
		t.Fatalf("second login: %v, want already logged in", err)
	}
	if _, err := bot.Dial(ctx, addr, "not valid!", "x"); !errors.Is(err, proto.ErrInvalidName) {
		t.Fatalf("bad name: %v", err)
	}
}

// nearby reports whether c's last Nearby lists name.
func nearby(c *bot.Client, name string) bool {
	want, _ := proto.EncodeName(name)
	for _, p := range c.State().Nearby {
		if p.Name37 == want {
			return true
		}
	}
	return false
}

func TestClient_Walk_SeeEachOtherNearby(t *testing.T) {
	addr := startWorld(t)
	a, b := dial(t, addr, "alice"), dial(t, addr, "bob")
	at := a.State().Position
	walkAway(t, b, at)
	poll.True(t, wait, "alice no longer sees bob", func() bool { return !nearby(a, "bob") })
	if err := b.Walk(at.X, at.Y); err != nil {
		t.Fatal(err)
	}
	poll.True(t, wait, "bob walked back within reach of alice", func() bool {
		return chebyshev(a.State().Position, b.State().Position) <= proto.NearbyRadius
	})
	poll.True(t, wait, "each sees the other in Nearby", func() bool {
		return nearby(a, "bob") && nearby(b, "alice")
	})
}

// walkAway walks c out of the area of interest around from, trying the
// eight directions in turn (the map decides which way is open).
func walkAway(t *testing.T, c *bot.Client, from proto.Position) {
	t.Helper()
	const far = proto.NearbyRadius + 8
	for _, d := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}, {1, -1}, {-1, 1}} {
		x, y := int(from.X)+d[0]*far, int(from.Y)+d[1]*far
		if x < 0 || y < 0 || x > 255 || y > 255 {
			continue
		}
		if err := c.Walk(uint16(x), uint16(y)); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(far * time.Second) // a tile per 600 ms tick
		for time.Now().Before(deadline) {
			if chebyshev(c.State().Position, from) > proto.NearbyRadius {
				return
			}
			time.Sleep(poll.Interval)
		}
	}
	t.Fatalf("bob found no way out of reach of %+v", from)
}

func chebyshev(p, q proto.Position) uint16 {
	return max(absDiff(p.X, q.X), absDiff(p.Y, q.Y))
}

func absDiff(a, b uint16) uint16 {
	if a > b {
		return a - b
	}
	return b - a
}

func TestStamp_RoundTrip(t *testing.T) {
	sent := time.Unix(1_790_000_000, 123456789)
	text := bot.Stamp(18446744073709551615, sent)
	if len(text) > proto.MaxText {
		t.Fatalf("stamp %q is %d bytes", text, len(text))
	}
	seq, got, ok := bot.ParseStamp(text)
	if !ok || seq != 18446744073709551615 || !got.Equal(sent) {
		t.Fatalf("ParseStamp(%q) = %d %v %v", text, seq, got, ok)
	}
	for _, bad := range []string{"", "hello", "lat ", "lat 1", "lat x 2", "lat 1 y"} {
		if _, _, ok := bot.ParseStamp(bad); ok {
			t.Errorf("ParseStamp(%q) ok", bad)
		}
	}
}
