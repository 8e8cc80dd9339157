package ether_test

import (
	"testing"

	"github.com/corrosion/corrosion/ether/proto"
)

// A FriendAdd that adds answers the owner's world with UpdateFriendList
// (owner, friend, node): the node where the owner sees the friend, 0 when
// the friend is offline or hidden (docs/ether.md), so the client can
// show the new row at once.
func TestFriendAdd_AnswersWithTheFriendsNode(t *testing.T) {
	c := newTestCluster(t, "")
	w10 := connectWorld(t, c.start(10))
	w11 := connectWorld(t, c.start(11))
	const (
		a                                    = 1 // the owner, on node 10
		on, off, friendsListing, friendsNot  = 2, 3, 4, 5
		local, offline, localOff, localNotOn = 6, 7, 8, 9
	)
	c.friends(friendsListing, a)
	c.exec("INSERT INTO player_settings (user_hash, private_mode) VALUES (3, 2), (4, 1), (5, 1), (8, 2), (9, 1)")
	for _, u := range []uint64{on, off, friendsListing, friendsNot} {
		w11.login(u)
	}
	for _, u := range []uint64{local, localOff, localNotOn} {
		w10.login(u)
	}
	w10.login(a)
	w11.expect(ufl(friendsListing, a, 10)) // a's presence, to the one who lists a

	tests := []struct {
		name   string
		friend uint64
		node   uint8
	}{
		{"online on another node", on, 11},
		{"online here", local, 10},
		{"offline", offline, 0},
		{"private Off on another node", off, 0},
		{"private Off here", localOff, 0},
		{"Friends mode listing the owner", friendsListing, 11},
		{"Friends mode not listing the owner", friendsNot, 0},
		{"Friends mode here, not listing the owner", localNotOn, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w10.t = t
			defer func() { w10.t = c.t }()
			w10.send(proto.FriendAdd{Owner37: a, Friend37: tt.friend})
			w10.expect(ufl(a, tt.friend, tt.node))
			w10.sync(a) // exactly one answer

			// A duplicate add changes nothing and answers nothing.
			w10.send(proto.FriendAdd{Owner37: a, Friend37: tt.friend})
			w10.sync(a)
		})
	}
	w11.quiet()
}
