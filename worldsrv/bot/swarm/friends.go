package swarm

import (
	"context"
	"slices"
	"time"

	"github.com/corrosion/corrosion/internal/ctxtime"
	"github.com/corrosion/corrosion/worldsrv/bot"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// TextOffline is the world's answer to a PM it does not send on: the
// target is not a friend the sender's world last saw online
// (docs/worldsrv.md).
const TextOffline = "That player is currently offline."

// friendsPollEvery is how often waitFriends looks at the bots' friend
// lists.
const friendsPollEvery = 50 * time.Millisecond

// addFriends has each bot add the next cfg.Friends bots by number.
func (r *run) addFriends() {
	for _, c := range r.bots {
		for _, name := range r.friendsOf(r.index(c)) {
			if err := c.AddFriend(name); err != nil {
				r.rec.fail("friend", err)
				continue
			}
			r.rec.count("friend")
		}
	}
}

// friendsOf names the bots bot i adds: the next cfg.Friends by number.
func (r *run) friendsOf(i int) []string {
	names := make([]string, 0, r.cfg.Friends)
	for k := 1; k <= r.cfg.Friends; k++ {
		names = append(names, r.cfg.name((i+k)%r.cfg.Bots))
	}
	return names
}

// waitFriends waits up to cfg.FriendsOnline, or until ctx ends, until
// every bot sees each of its friends that logged in online at that
// friend's world (the node its login answered). It returns the friend rows
// still not seen so.
func (r *run) waitFriends(ctx context.Context) int {
	nodes := make(map[string]uint8, len(r.bots)) // bot name → its world's node
	for _, c := range r.bots {
		nodes[c.Name()] = c.State().Node
	}
	pending := slices.Clone(r.bots)
	deadline := time.Now().Add(r.cfg.FriendsOnline)
	for {
		pending = slices.DeleteFunc(pending, func(c *bot.Client) bool { return r.friendsNotOnline(c, nodes) == 0 })
		left := time.Until(deadline)
		if len(pending) == 0 || left <= 0 || !ctxtime.Sleep(ctx, min(left, friendsPollEvery)) {
			break
		}
	}
	missing := 0
	for _, c := range pending {
		missing += r.friendsNotOnline(c, nodes)
	}
	return missing
}

// friendsNotOnline counts c's friends that logged in (their node in
// nodes) and that c does not yet see at that node. The world names a
// friend in its display form ("Pm3" for "pm3"), so names compare as
// name37.
func (r *run) friendsNotOnline(c *bot.Client, nodes map[string]uint8) int {
	seen := map[uint64]uint8{}
	for name, node := range c.State().Friends {
		if id, err := proto.EncodeName(name); err == nil {
			seen[id] = node
		}
	}
	n := 0
	for _, name := range r.friendsOf(r.index(c)) {
		want, in := nodes[name]
		id, err := proto.EncodeName(name)
		if in && (err != nil || seen[id] != want) {
			n++
		}
	}
	return n
}
