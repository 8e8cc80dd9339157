package engine

import (
	"fmt"
	"testing"

	"github.com/corrosion/corrosion/internal/ethertest"
	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// awaitFrame ticks until c has received a frame for which match is true.
func (c *client) awaitFrame(what string, match func(proto.WorldMessage) bool) proto.WorldMessage {
	c.w.t.Helper()
	var found proto.WorldMessage
	c.w.tickUntil(what, func() bool {
		c.read()
		for i, m := range c.got {
			if match(m) {
				found = m
				c.got = c.got[i+1:]
				return true
			}
		}
		return false
	})
	return found
}

func status(name37 uint64, node uint8) func(proto.WorldMessage) bool {
	return func(m proto.WorldMessage) bool {
		s, ok := m.(*proto.FriendStatus)
		return ok && s.Name37 == name37 && s.Node == node
	}
}

func isType[T proto.WorldMessage](m proto.WorldMessage) bool { _, ok := m.(T); return ok }

// Through the real sidecar: the login sequence, a friend added and seen
// online, a filtered PM delivered, PMs to offline players refused by the
// world, the friend's logout seen, its position restored from the save
// ether stored, a same-world duplicate refused, and after a sidecar crash
// the world's resync bringing presence and PMs back.
func TestEther_LoginFriendsPMLogoutRestore(t *testing.T) {
	sc := ethertest.Start(t)
	link := startLink(t, sc.Addr())
	w := etherWorld(t, link, Config{WordFilter: []string{"darn"}})
	w.tickUntil("link up", link.Up)

	a, got := w.login("10.0.0.1", "anna", "pw")
	if code(t, got) != proto.LoginOK {
		t.Fatalf("anna: %v", got)
	}
	wantTypes := []string{"*proto.LoginResponse", "*proto.MapInfo", "*proto.Position", "*proto.ChatSettingsNow"}
	for i, want := range wantTypes {
		if got := fmt.Sprintf("%T", got[i]); got != want {
			t.Fatalf("frame %d is %s, want %s", i, got, want)
		}
	}
	a.got = got[len(wantTypes):]
	a.awaitFrame("anna's IgnoreList", isType[*proto.IgnoreList])
	a.awaitFrame("anna's FriendListLoaded", isType[*proto.FriendListLoaded])

	b, _ := w.login("10.0.0.2", "bert", "pw")
	b.awaitFrame("bert's FriendListLoaded", isType[*proto.FriendListLoaded])
	anna, bert := a.c.player.user37, b.c.player.user37

	a.deliver(&proto.FriendAdd{Name: "Bert"})
	a.awaitFrame("anna sees bert online", status(bert, 10))
	b.deliver(&proto.FriendAdd{Name: "anna"})
	b.awaitFrame("bert sees anna online", status(anna, 10))

	a.deliver(&proto.PrivateMessage{Name: "bert", Text: "DARN hello"})
	pm := b.awaitFrame("bert gets the PM", isType[*proto.PrivateMessageIn]).(*proto.PrivateMessageIn)
	if pm.From37 != anna || pm.Text != "**** hello" || pm.MsgID <= 0 {
		t.Fatalf("PM %+v", pm)
	}
	a.deliver(&proto.PrivateMessage{Name: "nobody", Text: "hi"})
	w.tick()
	if sm, ok := find[*proto.SystemMessage](a.take()); !ok || sm.Text != textOffline {
		t.Fatalf("PM to a stranger: %+v %v", sm, ok)
	}

	b2 := bertLeavesAndReturns(t, w, a, b)
	if _, got := w.login("10.0.0.3", "Bert", "pw"); code(t, got) != proto.LoginAlreadyOnline {
		t.Fatalf("duplicate: %v, want 5", got)
	}

	// The sidecar crashes and comes back: the world resyncs both players
	// (PlayerResync, RefreshAll), so presence and PMs work again.
	sc.Kill()
	w.tickUntil("link down", func() bool { return !link.Up() })
	sc.Run()
	w.tickUntil("link up again", link.Up)
	a.awaitFrame("anna sees bert after the resync", status(bert, 10))
	a.deliver(&proto.PrivateMessage{Name: "bert", Text: "welcome back"})
	pm = b2.awaitFrame("bert gets a PM after the resync", isType[*proto.PrivateMessageIn]).(*proto.PrivateMessageIn)
	if pm.From37 != anna || pm.Text != "welcome back" {
		t.Fatalf("PM after resync %+v", pm)
	}
}

// bertLeavesAndReturns walks bert, logs him out (anna sees him go and her
// PM to him is refused by the world), logs him back in where he was (his
// save, through ether) and returns his new client.
func bertLeavesAndReturns(t *testing.T, w *world, a, b *client) *client {
	t.Helper()
	anna, bert := a.c.player.user37, b.c.player.user37
	from := b.c.player.pos
	target := farTarget(t, from, 4)
	b.deliver(&proto.Walk{X: target.X, Y: target.Y})
	for range 4 {
		w.tick()
	}
	at := b.c.player.pos
	if at == from {
		t.Fatal("bert did not move")
	}
	b.deliver(&proto.Logout{})
	a.awaitFrame("anna sees bert offline", status(bert, 0))
	a.deliver(&proto.PrivateMessage{Name: "bert", Text: "still there?"})
	w.tick()
	if sm, ok := find[*proto.SystemMessage](a.take()); !ok || sm.Text != textOffline {
		t.Fatalf("PM to an offline friend: %+v %v", sm, ok)
	}
	b2, got := w.login("10.0.0.2", "bert", "pw")
	if pos, ok := find[*proto.Position](got); !ok || (terrain.Point{X: pos.X, Y: pos.Y}) != at {
		t.Fatalf("bert back at %+v, want %+v (moved from %+v)", pos, at, from)
	}
	b2.awaitFrame("bert's list shows anna", status(anna, 10))
	a.awaitFrame("anna sees bert back", status(bert, 10))
	return b2
}
