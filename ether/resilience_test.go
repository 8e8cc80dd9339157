package ether_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether"
	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
)

func TestNodeKilled_PlayersOfflineThenBackOnRestart(t *testing.T) {
	c := newTestCluster(t, "")
	// Production liveness settings: a node silent for 3s is down, and its
	// players must show offline everywhere within 5s.
	prod := func(cfg *ether.Config) { cfg.Heartbeat, cfg.NodeTimeout = time.Second, 3*time.Second }
	w10 := connectWorld(t, c.start(10, prod))
	n11 := c.start(11, prod)
	w11 := connectWorld(t, n11)
	w12 := connectWorld(t, c.start(12, prod))
	const a, b, cc = 41, 42, 43 // a (node 10) lists b (11) and cc (12); b lists a
	c.friends(a, b, cc)
	c.friends(b, a)
	w11.login(b)
	w12.login(cc)
	w10.login(a)
	w11.expect(ufl(b, a, 10))

	killed := time.Now()
	n11.crash(t)
	w10.expect(ufl(a, b, 0))
	if d := time.Since(killed); d > 5*time.Second {
		t.Fatalf("players of a dead node shown offline after %v, want within 5s", d)
	}
	w12.quiet() // cc lists nobody on node 11

	// The node comes back; its world reconnects and resyncs its player.
	w11 = connectWorld(t, c.start(11))
	w11.send(proto.PlayerResync{User37: b, PID: 7, PrivateMode: 0}, proto.RefreshAll{})
	w11.expect(ufl(b, a, 10), proto.UpdateIgnoreList{Target37: b}, proto.FriendListComplete{Target37: b})
	w10.waitFor(ufl(a, b, 11))
}

func TestWorldLinkDropped_ResyncRestoresListsAndUnsyncedSessionsEnd(t *testing.T) {
	c := newTestCluster(t, "")
	n10 := c.start(10)
	w10 := connectWorld(t, n10)
	w11 := connectWorld(t, c.start(11))
	const a, gone, b = 51, 52, 53 // a and gone on node 10; b (node 11) lists both, a lists b
	c.friends(a, b)
	c.friends(b, a, gone)
	c.ignores(a, 99)
	w11.login(b)
	w10.login(a)
	w10.login(gone)
	w11.expectSet(ufl(b, a, 10), ufl(b, gone, 10))

	dropped := time.Now() // before: the node may see the drop before disconnect returns
	w10.disconnect()
	w10 = connectWorld(t, n10)
	// The world resyncs a (with its private mode), not gone, then asks for
	// a refresh.
	w10.send(proto.PlayerResync{User37: a, PID: 9, PrivateMode: 1}, proto.RefreshAll{})
	w10.expect(ufl(a, b, 11), proto.UpdateIgnoreList{Target37: a, Ignores: []uint64{99}}, proto.FriendListComplete{Target37: a})
	w10.expect(ufl(a, b, 11)) // RefreshAll: gone, not resynced, takes no part
	// b never saw a go offline, and a (Friends-only now) lists b: the
	// resync's broadcast and RefreshAll's change nothing for b and send
	// nothing. gone was not resynced: its session ends after the link
	// grace, b's next frame.
	w11.expect(ufl(b, gone, 0))
	if d := time.Since(dropped); d < 2*time.Second {
		t.Fatalf("unsynced session ended after %v, before the 2s grace", d)
	}
	poll.True(t, wait, "mode from the resync stored", func() bool {
		return c.count("SELECT count(*) FROM player_settings WHERE user_hash = 51 AND private_mode = 1") == 1
	})
	w10.quiet()
	w11.quiet()
}

func TestPostgresOutage_ServesFromMemoryAndLosesNothing(t *testing.T) {
	pg := pgtest.NewCluster(t)
	c := newTestCluster(t, pg.URL("ether"))
	n10 := c.start(10)
	w10 := connectWorld(t, n10)
	w11 := connectWorld(t, c.start(11))
	const a, b, cc, d = 61, 62, 63, 64 // a (10) lists b; b and cc on 11; d (10) lists a
	c.friends(a, b)
	c.friends(d, a)
	w11.login(b)
	w11.login(cc)
	w10.login(a)

	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	poll.True(t, wait, "node notices the outage", func() bool { return !n10.node.Health().DBUp })

	// Writes are taken from memory and queued.
	w10.send(proto.FriendAdd{Owner37: a, Friend37: cc})
	w10.expect(ufl(a, cc, 11))
	w10.send(proto.IgnoreAdd{Owner37: a, Ignore37: 77}, proto.ChatModeUpdate{User37: a, PrivateMode: 1})
	w10.send(proto.PlayerSaveRequest{User37: a, SaveData: []byte("saved during the outage")})
	w10.expect(proto.PlayerSaveAck{User37: a, Success: false})
	w10.send(proto.PlayerLoadRequest{User37: a})
	w10.expect(proto.PlayerLoadResponse{User37: a, SaveData: []byte("saved during the outage")})
	// Sessions keep serving: a PM and a login still work.
	w11.send(proto.PrivateMessage{Sender37: b, Target37: a, Level: 0, Body: []byte("hi")})
	if m, ok := w10.next().(proto.MessagePrivate); !ok || m.Recipient37 != a || string(m.Body) != "hi" {
		t.Fatalf("PM during the outage: %#v", m)
	}
	if got := w10.login(d); len(got) != 2 { // no lists yet: ignore list and complete only
		t.Fatalf("login during the outage sent %#v", got)
	}
	w10.quiet()

	if err := pg.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	// On recovery every session reloads and re-sends its lists; d's real
	// list includes a, who is Friends-only now and does not list d. (a's
	// re-sent broadcast may tell d the same once more, in any order.)
	byTarget := map[uint64][]proto.Message{}
	for len(byTarget[a]) < 4 || len(byTarget[d]) < 3 {
		m := w10.next()
		byTarget[target(m)] = append(byTarget[target(m)], m)
	}
	wantA := []proto.Message{ufl(a, b, 11), ufl(a, cc, 11), proto.UpdateIgnoreList{Target37: a, Ignores: []uint64{77}}, proto.FriendListComplete{Target37: a}}
	if !reflect.DeepEqual(byTarget[a], wantA) {
		t.Fatalf("a's lists after recovery: %#v", byTarget[a])
	}
	gotD := slices.Compact(byTarget[d])
	wantD := []proto.Message{ufl(d, a, 0), proto.UpdateIgnoreList{Target37: d}, proto.FriendListComplete{Target37: d}}
	if !reflect.DeepEqual(gotD[:3], wantD) {
		t.Fatalf("d's lists after recovery: %#v", byTarget[d])
	}
	checks := []struct {
		sql  string
		want int
	}{
		{"SELECT count(*) FROM friends WHERE owner_hash = 61 AND friend_hash IN (62, 63)", 2},
		{"SELECT count(*) FROM ignores WHERE owner_hash = 61 AND ignore_hash = 77", 1},
		{"SELECT count(*) FROM player_settings WHERE user_hash = 61 AND private_mode = 1", 1},
		{"SELECT count(*) FROM player_saves WHERE user_hash = 61 AND save_data = 'saved during the outage'", 1},
	}
	for _, ch := range checks {
		if got := c.count(ch.sql); got != ch.want {
			t.Errorf("%s = %d, want %d", ch.sql, got, ch.want)
		}
	}
}

func TestNATSOutage_LocalFeaturesWorkAndPresenceReturns(t *testing.T) {
	c := newTestCluster(t, "")
	n10 := c.start(10)
	w10 := connectWorld(t, n10)
	w11 := connectWorld(t, c.start(11))
	const a, l, b, z = 71, 72, 73, 74 // a, l on node 10 (l lists a), b on 11; a and b list each other
	c.friends(a, b)
	c.friends(b, a)
	c.friends(l, a)
	w11.login(b)
	w10.login(a)
	w11.expect(ufl(b, a, 10))
	w10.login(l)

	c.nats.Shutdown()
	poll.True(t, wait, "node 10 sees NATS down", func() bool { return !n10.node.Health().NATSConnected })
	// Local features: a PM, a mode change seen by a local friend, a login.
	w10.send(proto.PrivateMessage{Sender37: l, Target37: a, Body: []byte("local")})
	if m, ok := w10.next().(proto.MessagePrivate); !ok || string(m.Body) != "local" {
		t.Fatalf("local PM during the NATS outage: %#v", m)
	}
	w10.send(proto.ChatModeUpdate{User37: a, PrivateMode: 2})
	w10.expect(ufl(l, a, 0))
	w10.send(proto.ChatModeUpdate{User37: a, PrivateMode: 0})
	w10.expect(ufl(l, a, 10))
	w10.login(z)
	// Remote friends are shown offline once the peer is considered down.
	w10.waitFor(ufl(a, b, 0))

	c.nats.Restart()
	w10.waitFor(ufl(a, b, 11))
	w11.waitFor(ufl(b, a, 10))
}

func TestHealthAndMetrics(t *testing.T) {
	c := newTestCluster(t, "")
	sub := c.nats.Connect(t)
	snaps, err := sub.SubscribeSync("t.health.10")
	if err != nil {
		t.Fatal(err)
	}
	n10 := c.start(10, func(cfg *ether.Config) { cfg.MetricsListen = "127.0.0.1:0" })
	w10 := connectWorld(t, n10)
	connectWorld(t, c.start(11))
	w10.login(81)
	w10.send(proto.PrivateMessage{Sender37: 81, Target37: 82, Body: []byte("nobody")})
	w10.sync(81)
	checkHealth(t, snaps)
	checkMetrics(t, n10.node.MetricsAddr().String())
}

// target is the player a frame to the world is about.
func target(m proto.Message) uint64 {
	switch v := m.(type) {
	case proto.UpdateFriendList:
		return v.Target37
	case proto.UpdateIgnoreList:
		return v.Target37
	case proto.FriendListComplete:
		return v.Target37
	case proto.MessagePrivate:
		return v.Recipient37
	case proto.PlayerLoadResponse:
		return v.User37
	case proto.PlayerSaveAck:
		return v.User37
	case proto.LoginCheckResponse:
		return v.User37
	}
	return 0
}

// A login allowed during a NATS outage holds a node-local lock; when NATS
// is back before that lock expires (the world has not sent PlayerLogin
// yet), a second check of the same player is still denied. Before the fix
// the connected path asked only the cluster-wide bucket, which had never
// heard of the player, and allowed a second login.
func TestNATSOutage_LocalLoginLockHoldsAfterNATSReturns(t *testing.T) {
	c := newTestCluster(t, "")
	n10 := c.start(10, func(cfg *ether.Config) { cfg.LeaseTTL = 30 * time.Second })
	w10 := connectWorld(t, n10)
	const p = 81
	c.nats.Shutdown()
	poll.True(t, wait, "node 10 sees NATS down", func() bool { return !n10.node.Health().NATSConnected })
	w10.send(proto.LoginCheck{User37: p})
	w10.expect(allowed(p))

	c.nats.Restart()
	poll.True(t, wait, "node 10 back on NATS", func() bool { return n10.node.Health().NATSConnected })
	w10.send(proto.LoginCheck{User37: p})
	w10.expect(denied(p))
	// Another player takes the cluster-wide lock as usual, once the
	// restarted server's JetStream serves the bucket again (a check that
	// cannot take the lock is denied and takes nothing).
	poll.Until(t, wait, func() error {
		w10.send(proto.LoginCheck{User37: p + 1})
		if m := w10.next(); m != allowed(p+1) {
			return notYet("login check of %d: %#v", p+1, m)
		}
		return nil
	})
	if h := n10.node.Health(); h.LoginLock != "ok" {
		t.Fatalf("login lock %q after NATS returned", h.LoginLock)
	}
}
