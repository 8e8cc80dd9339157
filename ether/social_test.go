package ether_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/poll"
)

// expectSet checks that the next len(want) frames are want in any order.
func (w *world) expectSet(want ...proto.Message) {
	w.t.Helper()
	left := slices.Clone(want)
	for range want {
		got := w.next()
		i := slices.IndexFunc(left, func(m proto.Message) bool { return reflect.DeepEqual(m, got) })
		if i < 0 {
			w.t.Fatalf("world %d: unexpected %#v; still waiting for %#v", w.node, got, left)
		}
		left = slices.Delete(left, i, i+1)
	}
}

func TestRequestLists_FrameOrder(t *testing.T) {
	c := newTestCluster(t, "")
	w10 := connectWorld(t, c.start(10))
	w11 := connectWorld(t, c.start(11))
	const (
		a, b, cOff, d, e, f, g, h = 1, 2, 3, 4, 5, 6, 7, 8
	)
	c.friends(a, b, cOff, d, g, h)
	c.ignores(a, 91, 90)
	c.friends(e, a)
	c.friends(f, a)
	c.friends(g, a)
	c.exec("INSERT INTO player_settings (user_hash, private_mode) VALUES (4, 2), (7, 1), (8, 1)")
	for _, u := range []uint64{b, g, h, f} {
		w11.login(u)
	}
	for _, u := range []uint64{d, e} {
		w10.login(u)
	}

	got := w10.login(a)
	want := []proto.Message{
		ufl(a, b, 11),   // On
		ufl(a, cOff, 0), // offline
		ufl(a, d, 0),    // Off: hidden even on the same node
		ufl(a, g, 11),   // Friends, and g lists a
		ufl(a, h, 0),    // Friends, and h does not list a
		ufl(e, a, 10),   // the broadcast to a local player who lists a
		proto.UpdateIgnoreList{Target37: a, Ignores: []uint64{91, 90}},
		proto.FriendListComplete{Target37: a},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("RequestLists frames:\n got  %#v\n want %#v", got, want)
	}
	w11.expectSet(ufl(f, a, 10), ufl(g, a, 10))
	w10.quiet()
}

func TestPresence_PrivateModesAcrossNodes(t *testing.T) {
	c := newTestCluster(t, "")
	w10 := connectWorld(t, c.start(10))
	w11 := connectWorld(t, c.start(11))
	const a, b, f = 11, 12, 16 // a lists f; b and f (on node 11) list a
	c.friends(a, f)
	c.friends(b, a)
	c.friends(f, a)
	w11.login(b)
	w11.login(f)
	w10.login(a)
	w11.expectSet(ufl(b, a, 10), ufl(f, a, 10))

	tests := []struct {
		mode    uint8
		seenByB uint8 // b is not on a's list
		seenByF uint8 // f is
	}{
		{mode: 0, seenByB: 10, seenByF: 10}, // unchanged mode: nothing is sent
		{mode: 1, seenByB: 0, seenByF: 10},  // only b's view changes
		{mode: 1, seenByB: 0, seenByF: 10},
		{mode: 2, seenByB: 0, seenByF: 0},
		{mode: 0, seenByB: 10, seenByF: 10},
	}
	prevB, prevF := uint8(10), uint8(10)
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%d_mode_%d", i, tt.mode), func(t *testing.T) {
			w10.t, w11.t = t, t
			w10.send(proto.ChatModeUpdate{User37: a, PrivateMode: tt.mode})
			w10.sync(a)
			// A change re-notifies the online players who list a, those
			// whose view of a changes; the others get nothing.
			var want []proto.Message
			if tt.seenByB != prevB {
				want = append(want, ufl(b, a, tt.seenByB))
			}
			if tt.seenByF != prevF {
				want = append(want, ufl(f, a, tt.seenByF))
			}
			prevB, prevF = tt.seenByB, tt.seenByF
			w11.expectSet(want...)
			// Lookups agree: b and f ask for their lists again. (A frame
			// sent that should not have been would show up here first.)
			w11.send(proto.RequestLists{User37: b})
			w11.expect(ufl(b, a, tt.seenByB), proto.UpdateIgnoreList{Target37: b}, proto.FriendListComplete{Target37: b})
			w11.send(proto.RequestLists{User37: f})
			w11.expect(ufl(f, a, tt.seenByF), proto.UpdateIgnoreList{Target37: f}, proto.FriendListComplete{Target37: f})
			// f's rebroadcast reaches a, who sees f at 11 already: no frame.
		})
	}
	w10.quiet()
	w11.quiet()
}

func TestPrivateMessages_RoutingAndDropRules(t *testing.T) {
	c := newTestCluster(t, "")
	n10 := c.start(10)
	w10 := connectWorld(t, n10)
	w11 := connectWorld(t, c.start(11))
	const s, tg, local, control = 21, 22, 23, 24
	w10.login(s)
	w10.login(local)
	w11.login(control)
	pm := func(target uint64, body string) proto.PrivateMessage {
		return proto.PrivateMessage{Sender37: s, Target37: target, Level: 2, Body: []byte(body)}
	}
	var ids []int32
	// expectPM checks the next frame on w is the PM to target.
	expectPM := func(w *world, target uint64, body string) {
		t.Helper()
		m, ok := w.next().(proto.MessagePrivate)
		if !ok || m.Recipient37 != target || m.Sender37 != s || m.Level != 2 || string(m.Body) != body || m.MsgID <= 0 {
			t.Fatalf("world %d: got %#v, want a PM %q to %d with a positive id", w.node, m, body, target)
		}
		ids = append(ids, m.MsgID)
	}
	tests := []struct {
		name      string
		setup     []proto.Message // sent by world 11 before the PM
		replies   []proto.Message // what world 11 gets for the setup
		delivered bool
	}{
		{name: "target offline"},
		{name: "target on, delivered", setup: []proto.Message{proto.PlayerLogin{User37: tg, PID: 2}}, delivered: true},
		{name: "target ignores the sender", setup: []proto.Message{proto.IgnoreAdd{Owner37: tg, Ignore37: s}}},
		{name: "target private off", setup: []proto.Message{proto.IgnoreDel{Owner37: tg, Ignore37: s}, proto.ChatModeUpdate{User37: tg, PrivateMode: 2}}},
		{name: "target friends-only without the sender", setup: []proto.Message{proto.ChatModeUpdate{User37: tg, PrivateMode: 1}}},
		{name: "target friends-only listing the sender", setup: []proto.Message{proto.FriendAdd{Owner37: tg, Friend37: s}},
			replies: []proto.Message{ufl(tg, s, 10)}, delivered: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w10.t, w11.t = t, t
			w11.send(tt.setup...)
			w11.expect(tt.replies...)
			w11.sync(tg)
			body := "to target: " + tt.name
			w10.send(pm(tg, body), pm(control, "control"))
			if tt.delivered {
				expectPM(w11, tg, body)
			}
			// The sender's PMs go out one after the other, so the control
			// PM arriving next proves the first was dropped.
			expectPM(w11, control, "control")
		})
	}
	w10.t, w11.t = t, t
	w10.send(pm(local, "same node"))
	expectPM(w10, local, "same node")
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(ids) {
		t.Fatalf("msg ids repeat: %v", ids)
	}
	poll.Until(t, wait, func() error {
		h := n10.node.Health()
		if h.PMsDelivered != 9 || h.PMsDropped != 4 {
			return notYet("delivered %d dropped %d (%v), want 9 and 4", h.PMsDelivered, h.PMsDropped, h.PMsDroppedBy)
		}
		for _, reason := range []string{"offline", "ignored", "private_off", "not_friend"} {
			if h.PMsDroppedBy[reason] != 1 {
				return notYet("dropped by %s = %d", reason, h.PMsDroppedBy[reason])
			}
		}
		return nil
	})
	w10.quiet()
	w11.quiet()
}

func TestLists_LimitsAndSilentNoOps(t *testing.T) {
	c := newTestCluster(t, "")
	w10 := connectWorld(t, c.start(10))
	w11 := connectWorld(t, c.start(11))
	const a, online, offline = 31, 32, 33
	var full, ignored []uint64
	for i := uint64(0); i < 200; i++ {
		full = append(full, 1000+i)
	}
	for i := uint64(0); i < 100; i++ {
		ignored = append(ignored, 2000+i)
	}
	c.exec("INSERT INTO friends (owner_hash, friend_hash) SELECT 31, g FROM generate_series(1000, 1199) g")
	c.exec("INSERT INTO ignores (owner_hash, ignore_hash) SELECT 31, g FROM generate_series(2000, 2099) g")
	w11.login(online)
	if got := w10.login(a); len(got) != 202 {
		t.Fatalf("login sent %d frames, want 200 friends + ignores + complete", len(got))
	}
	noops := []struct {
		name string
		m    proto.Message
	}{
		{"friend add to a full list", proto.FriendAdd{Owner37: a, Friend37: online}},
		{"friend add of oneself", proto.FriendAdd{Owner37: a, Friend37: a}},
		{"duplicate friend add", proto.FriendAdd{Owner37: a, Friend37: 1000}},
		{"absent friend delete", proto.FriendDel{Owner37: a, Friend37: 9999}},
		{"ignore add to a full list", proto.IgnoreAdd{Owner37: a, Ignore37: 6000}},
		{"duplicate ignore add", proto.IgnoreAdd{Owner37: a, Ignore37: 2000}},
		{"absent ignore delete", proto.IgnoreDel{Owner37: a, Ignore37: 9999}},
	}
	for _, tt := range noops {
		t.Run(tt.name, func(t *testing.T) {
			w10.t = t
			w10.send(tt.m)
			w10.sync(a) // fails on any frame before the barrier
		})
	}
	w10.t = t
	dbCounts := func() (int, int) {
		return c.count("SELECT count(*) FROM friends WHERE owner_hash = 31"), c.count("SELECT count(*) FROM ignores WHERE owner_hash = 31")
	}
	if f, i := dbCounts(); f != 200 || i != 100 {
		t.Fatalf("database changed by no-ops: %d friends, %d ignores", f, i)
	}

	// Room again: an online visible friend is reported with its node, an
	// offline one with node 0.
	w10.send(proto.FriendDel{Owner37: a, Friend37: 1000}, proto.FriendAdd{Owner37: a, Friend37: online})
	w10.expect(ufl(a, online, 11))
	w10.send(proto.FriendDel{Owner37: a, Friend37: 1001}, proto.FriendAdd{Owner37: a, Friend37: offline})
	w10.expect(ufl(a, offline, 0))
	w10.send(proto.IgnoreDel{Owner37: a, Ignore37: 2000}, proto.IgnoreAdd{Owner37: a, Ignore37: 6000})
	w10.sync(a)
	poll.Until(t, wait, func() error {
		if n := c.count("SELECT count(*) FROM friends WHERE owner_hash = 31 AND friend_hash IN (32, 33)"); n != 2 {
			return notYet("%d new friends stored", n)
		}
		if n := c.count("SELECT count(*) FROM ignores WHERE owner_hash = 31 AND ignore_hash = 6000"); n != 1 {
			return notYet("new ignore not stored")
		}
		if f, i := dbCounts(); f != 200 || i != 100 {
			return notYet("%d friends, %d ignores", f, i)
		}
		return nil
	})
	// What was stored is what a new session loads.
	w10.send(proto.PlayerLogout{User37: a})
	w10.sync(a)
	got := w10.login(a)
	wantFriends := append(slices.Clone(full[2:]), online, offline)
	var gotFriends []uint64
	for _, m := range got[:len(got)-2] {
		if u, ok := m.(proto.UpdateFriendList); ok && u.Target37 == a {
			gotFriends = append(gotFriends, u.Friend37)
		}
	}
	if !slices.Equal(gotFriends, wantFriends) {
		t.Fatalf("friends after relog: %v", gotFriends)
	}
	wantIgnores := append(slices.Clone(ignored[1:]), 6000)
	if il := got[len(got)-2].(proto.UpdateIgnoreList); !slices.Equal(il.Ignores, wantIgnores) {
		t.Fatalf("ignores after relog: %v", il.Ignores)
	}
}
