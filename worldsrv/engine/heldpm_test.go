package engine

import (
	"testing"

	"github.com/corrosion/corrosion/internal/ethertest"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// Issue 10: a PM sent right after login, before ether's friend list has
// arrived, reaches an online friend (it used to be answered "That player is
// currently offline." because the world had not yet seen the friend
// online); a PM to a player who is not an online friend is still refused.
func TestSocial_PMRightAfterLoginReachesOnlineFriend(t *testing.T) {
	sc := ethertest.Start(t)
	link := startLink(t, sc.Addr())
	w := etherWorld(t, link, Config{})
	w.tickUntil("link up", link.Up)

	a, _ := w.login("10.0.0.1", "anna", "pw")
	a.awaitFrame("anna's FriendListLoaded", isType[*proto.FriendListLoaded])
	b, _ := w.login("10.0.0.2", "bert", "pw")
	b.awaitFrame("bert's FriendListLoaded", isType[*proto.FriendListLoaded])
	anna, bert := a.c.player.user37, b.c.player.user37
	a.deliver(&proto.FriendAdd{Name: "bert"})
	a.awaitFrame("anna sees bert online", status(bert, 10))
	a.deliver(&proto.Logout{})
	w.tickUntil("anna gone", func() bool { return w.e.byUser[anna] == nil })

	a2, got := w.login("10.0.0.1", "anna", "pw")
	if code(t, got) != proto.LoginOK {
		t.Fatalf("anna again: %v", got)
	}
	if _, early := find[*proto.FriendListLoaded](got); early {
		t.Log("the friend list arrived in the login's tick: this run does not exercise the early PM")
	}
	a2.deliver(&proto.PrivateMessage{Name: "bert", Text: "first words"})
	a2.deliver(&proto.PrivateMessage{Name: "nobody", Text: "hello?"})
	pm := b.awaitFrame("bert gets the early PM", isType[*proto.PrivateMessageIn]).(*proto.PrivateMessageIn)
	if pm.Text != "first words" {
		t.Fatalf("PM %+v", pm)
	}
	w.tick()
	a2.read()
	var texts []string
	for _, m := range a2.got {
		if sm, ok := m.(*proto.SystemMessage); ok {
			texts = append(texts, sm.Text)
		}
	}
	if len(texts) != 1 || texts[0] != textOffline {
		t.Fatalf("anna's system messages %q, want one %q (for nobody)", texts, textOffline)
	}
}

// A PM held for a friend list that never comes is decided after
// heldPMTicks with what the world knows: offline.
func TestSocial_HeldPMExpires(t *testing.T) {
	link := startLink(t, silentPeer(t))
	w := etherWorld(t, link, Config{})
	w.tickUntil("link up", link.Up)
	tc := w.connect("10.0.0.1")
	p := &player{pid: 1, user37: 77, friends: map[uint64]uint8{}, c: tc.c}
	w.e.byUser[p.user37] = p
	for range maxHeldPMs + 1 {
		w.e.privateMessage(p, &proto.PrivateMessage{Name: "bert", Text: "hi"})
	}
	if len(p.held) != maxHeldPMs {
		t.Fatalf("%d held, want %d", len(p.held), maxHeldPMs)
	}
	offline := func() int {
		n := 0
		tc.read()
		for _, m := range tc.got {
			if sm, ok := m.(*proto.SystemMessage); ok && sm.Text == textOffline {
				n++
			}
		}
		return n
	}
	for range heldPMTicks - 1 {
		w.tick()
	}
	if n := offline(); n != 1 {
		t.Fatalf("%d offline answers before the hold expired, want 1 (the PM beyond the bound)", n)
	}
	w.tick()
	if n := offline(); n != maxHeldPMs+1 || len(w.e.holding) != 0 {
		t.Fatalf("%d offline answers after the hold, want %d; %d players holding", n, maxHeldPMs+1, len(w.e.holding))
	}
}
