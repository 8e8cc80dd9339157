package engine

import (
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	etherproto "github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/ethertest"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/etherlink"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// etherWorld is a world linked to link, with a long pending bound: ticks
// here are as fast as the test polls, not 600 ms.
func etherWorld(t *testing.T, link *etherlink.Client, cfg Config) *world {
	if cfg.PendingTicks == 0 {
		cfg.PendingTicks = 3000
	}
	return newWorld(t, cfg, Deps{Accounts: testAccounts(t), Link: link})
}

// A linked sidecar that never answers LoginCheck: the login is answered
// 13 in the PendingTicks-th tick after its account check, not before.
func TestLogin_PendingTimeout(t *testing.T) {
	link := startLink(t, silentPeer(t))
	w := etherWorld(t, link, Config{PendingTicks: 5})
	w.tickUntil("link up", link.Up)
	c := w.connect("10.0.0.1")
	c.deliver(&proto.Login{Username: "waiter", Password: "pw"})
	w.tickUntil("the login pending", func() bool { return w.e.Stats().Pending == 1 })
	for i := 1; i < 5; i++ {
		w.tick()
		if got := c.take(); len(got) != 0 {
			t.Fatalf("tick %d after the check: %v", i, got)
		}
	}
	w.tick()
	if got := c.take(); code(t, got) != proto.LoginCouldNotComplete {
		t.Fatalf("got %v, want 13", got)
	}
	w.tick()
	if !c.done() || w.e.Stats().Pending != 0 {
		t.Fatal("timed-out login not released")
	}
}

// loginAwaitingEther is a world linked to peer, a scripted sidecar, with the
// login of name pending: its LoginCheck sent and received, not answered.
func loginAwaitingEther(t *testing.T, cfg Config, name string) (*world, *scriptedPeer, *etherlink.Client, *client) {
	t.Helper()
	peer := newScriptedPeer(t)
	link := startLink(t, peer.addr)
	w := etherWorld(t, link, cfg)
	w.tickUntil("link up", link.Up)
	c := w.connect("10.0.0.1")
	c.deliver(&proto.Login{Username: name, Password: "pw"})
	w.tickUntil("the login pending", func() bool { return w.e.Stats().Pending == 1 })
	if got := peer.await(etherproto.OpLoginCheck).(*etherproto.LoginCheck).User37; got != mustEncode(t, name) {
		t.Fatalf("LoginCheck for %d, want %s's", got, name)
	}
	return w, peer, link, c
}

func mustEncode(t *testing.T, name string) uint64 {
	t.Helper()
	v, err := proto.EncodeName(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A login whose last answer (its save) reached the world in time, after
// the previous tick's drain, gets in in the tick its deadline falls: the
// drain runs before the deadline is applied. Before, the logins phase
// answered it 13 with the answer already queued.
func TestLogin_AnswerInHandAtDeadline_GetsIn(t *testing.T) {
	w, peer, link, c := loginAwaitingEther(t, Config{PendingTicks: 5}, "punctual")
	user := mustEncode(t, "punctual")
	queued := func(n int) func() bool { return func() bool { return link.Stats().InQueue == n } }
	for range 3 { // ticks 1-3 after the check: ether is slow
		w.tick()
	}
	peer.answer(etherproto.LoginCheckResponse{User37: user, Allowed: true})
	poll.True(t, wait, "the login check's answer queued", queued(1))
	w.tick() // 4: allowed; PlayerLogin and PlayerLoadRequest sent
	peer.await(etherproto.OpPlayerLoadRequest)
	peer.answer(etherproto.PlayerLoadResponse{User37: user})
	poll.True(t, wait, "the save queued", queued(1))
	if got := c.take(); len(got) != 0 {
		t.Fatalf("answered before its deadline's tick: %v", got)
	}
	w.tick() // 5: the deadline
	if got := code(t, c.take()); got != proto.LoginOK {
		t.Fatalf("code %d (%v) with the save in hand, want 2", got, got)
	}
}

// A pending login whose client hung up is released before the tick's drain:
// the login check's answer that arrives for it then starts no ether session
// (no PlayerLogin, PlayerLoadRequest, then PlayerLogout).
func TestLogin_PendingHangup_ReleasedBeforeItsAnswer(t *testing.T) {
	w, peer, link, c := loginAwaitingEther(t, Config{}, "quitter")
	user := mustEncode(t, "quitter")
	c.c.Hangup()
	peer.answer(etherproto.LoginCheckResponse{User37: user, Allowed: true})
	poll.True(t, wait, "the answer queued", func() bool { return link.Stats().InQueue == 1 })
	sent := func() int { st := link.Stats(); return int(st.Sent) + st.OutQueue }
	before := sent()
	w.tick()
	if n := sent() - before; n != 0 || w.e.Stats().Pending != 0 {
		t.Fatalf("%d frames sent to ether for a login whose client is gone (pending %d), want 0", n, w.e.Stats().Pending)
	}
}

// A login waiting for ether when the link is lost can no longer be
// answered (its LoginCheck went to the dead connection): it is answered 8
// (login server offline) as soon as the world sees the loss, not 13 when
// its PendingTicks run out.
func TestLogin_PendingWhenLinkLost_Answered8(t *testing.T) {
	w, peer, link, c := loginAwaitingEther(t, Config{}, "stranded")
	peer.stop()
	poll.True(t, wait, "link down", func() bool { return !link.Up() })
	for range 3 {
		w.tick()
		if c.read(); len(c.got) > 0 {
			break
		}
	}
	if got := code(t, c.take()); got != proto.LoginServerOffline {
		t.Fatalf("code %d (%v), want 8", got, got)
	}
	if w.e.Stats().Pending != 0 {
		t.Fatal("the stranded login is still pending")
	}
}

// No sidecar listening: the link is down and a login is answered 8.
func TestLogin_SidecarDown(t *testing.T) {
	link := startLink(t, "127.0.0.1:"+strconv.Itoa(natstest.FreePort(t)))
	w := etherWorld(t, link, Config{})
	if _, got := w.login("10.0.0.1", "lonely", "pw"); code(t, got) != proto.LoginServerOffline {
		t.Fatalf("got %v, want 8", got)
	}
}

// A player who logs out while the sidecar is down is saved in the world
// and the save reaches ether once the link is back: the next login,
// through the restarted sidecar, starts where the player left.
func TestLogout_SaveKeptWhileLinkDown(t *testing.T) {
	sc := ethertest.Start(t)
	link := startLink(t, sc.Addr())
	w := etherWorld(t, link, Config{})
	w.tickUntil("link up", link.Up)
	c, got := w.login("10.0.0.1", "hiker", "pw")
	if code(t, got) != proto.LoginOK {
		t.Fatalf("login: %v", got)
	}
	target := farTarget(t, c.c.player.pos, 3)
	c.deliver(&proto.Walk{X: target.X, Y: target.Y})
	for range 3 {
		w.tick()
	}
	at := c.c.player.pos
	sc.Kill()
	w.tickUntil("link down", func() bool { return !link.Up() })
	c.deliver(&proto.Logout{})
	w.tick()
	if len(w.e.saves) != 1 {
		t.Fatal("save not kept while the link is down")
	}
	sc.Run()
	w.tickUntil("link up and the save sent", func() bool { return link.Up() && len(w.e.saves) == 0 })
	_, got = w.login("10.0.0.1", "hiker", "pw")
	if pos, ok := find[*proto.Position](got); !ok || pos.X != at.X || pos.Y != at.Y {
		t.Fatalf("back at %+v, want %+v", pos, at)
	}
}

// A sidecar sending faster than the world drains, with no catch-up: each
// tick handles at most EtherDrain events, the rest wait for the next ticks.
func TestEther_DrainBoundedPerTick(t *testing.T) {
	w, link := backlog(t, 10, Config{EtherDrain: 3, EtherCatchUp: -1})
	poll.True(t, wait, "11 events queued", func() bool { return link.Stats().InQueue == 11 })
	for _, want := range []uint64{3, 6, 9, 11, 11} {
		w.tick()
		if got := w.e.Stats().EtherEvents; got != want {
			t.Fatalf("events handled %d, want %d", got, want)
		}
	}
}

// A backlog (a reconnect storm's friend lists and presence) is caught up
// in batches within EtherCatchUp, not one batch a tick: at 100 a tick, the
// ~8 events of each of 2,000 logins took two minutes, filled the link's
// queue and held the login answers behind it past their 5 ticks (13).
func TestEther_BacklogCaughtUpWithinBudget(t *testing.T) {
	const events = 5000
	w, link := backlog(t, events, Config{EtherDrain: 100, EtherCatchUp: time.Second})
	poll.True(t, wait, "the backlog queued", func() bool { return link.Stats().InQueue == events+1 })
	w.tick()
	if got := w.e.Stats().EtherEvents; got != events+1 {
		t.Fatalf("events handled in one tick %d, want all %d (in batches of 100 within 1 s)", got, events+1)
	}
}

// The catch-up is the one exception to the design's "at most 100 ether
// messages a tick", and time bounds it: a further batch starts only while
// the phase has run less than EtherCatchUp (1 ms by default). Each reading
// of the clock here is 0.4 ms after the last: the phase stops after its
// third batch, and the rest waits for the next ticks.
func TestEther_CatchUpStopsAtItsBudget(t *testing.T) {
	const events = 1000
	w, link := backlog(t, events, Config{EtherDrain: 100})
	poll.True(t, wait, "the backlog queued", func() bool { return link.Stats().InQueue == events+1 })
	w.e.clock = (&steppingClock{now: time.Unix(0, 0), step: 400 * time.Microsecond}).read
	for _, want := range []uint64{300, 600, 900, events + 1} {
		w.tick()
		if got := w.e.Stats().EtherEvents; got != want {
			t.Fatalf("events handled %d, want %d (batches of 100 started within 1 ms a tick)", got, want)
		}
	}
}

// backlog is a world whose sidecar has sent n PlayerSaveAcks at once,
// linked (with its Connected event queued) but not yet ticked.
func backlog(t *testing.T, n int, cfg Config) (*world, *etherlink.Client) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		t.Cleanup(func() { nc.Close() })
		var b []byte
		for i := range n {
			b, _ = etherproto.AppendFrame(b, etherproto.PlayerSaveAck{User37: uint64(i + 1), Success: true})
		}
		_, _ = nc.Write(b)
		_, _ = io.Copy(io.Discard, nc)
	}()
	link := startLink(t, ln.Addr().String())
	return etherWorld(t, link, cfg), link
}
