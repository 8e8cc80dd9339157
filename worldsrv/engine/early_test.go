package engine

import (
	"context"
	"slices"
	"testing"

	etherproto "github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// earlyWorld is a world linked to a scripted sidecar that announced
// LoginRelease, with alice's account (password "pw") registered. Its
// account checks wait at accs' gate until the test opens it: a password
// is verified no sooner than the test says (before, a quick one could be
// done in the tick that read its login, which then never saw it pending).
func earlyWorld(t *testing.T) (*world, *scriptedPeer, *gatedAccounts) {
	t.Helper()
	accs := newGatedAccounts(t)
	if _, err := accs.Accounts.Login(context.Background(), "alice", "pw"); err != nil {
		t.Fatal(err)
	}
	peer := newScriptedPeer(t)
	link := startLink(t, peer.addr)
	w := newWorld(t, Config{PendingTicks: 3000}, Deps{Accounts: accs, Link: link})
	w.tickUntil("link up", link.Up)
	peer.answer(etherproto.Features{Mask: etherproto.FeatureLoginRelease})
	w.tickUntil("features known", func() bool { return w.e.etherFeatures != 0 })
	return w, peer, accs
}

// earlyLogin has c log in as alice with password and returns alice's
// user37 once the world read the login and the sidecar got its LoginCheck.
func earlyLogin(t *testing.T, w *world, peer *scriptedPeer, c *client, password string) uint64 {
	t.Helper()
	c.deliver(&proto.Login{Username: "alice", Password: password})
	user := mustEncode(t, "alice")
	w.tickUntil("the login read", func() bool { return w.e.pending[user] != nil })
	if m := peer.await(etherproto.OpLoginCheck).(*etherproto.LoginCheck); m.User37 != user {
		t.Fatalf("LoginCheck for %d", m.User37)
	}
	return user
}

// answered ticks until c has its login answer and returns its code.
func answered(t *testing.T, w *world, c *client) proto.LoginCode {
	t.Helper()
	var got []proto.WorldMessage
	w.tickUntil("the login answered", func() bool { got = append(got, c.take()...); return len(got) > 0 })
	return code(t, got)
}

// With a sidecar that handles LoginRelease, the LoginCheck and the load go
// out in the tick that reads the login, before its password is verified,
// and the login completes when both are done.
func TestLogin_Early_CheckOverlapsThePassword(t *testing.T) {
	w, peer, accs := earlyWorld(t)
	c := w.connect("10.0.0.1")
	user := earlyLogin(t, w, peer, c, "pw")
	peer.await(etherproto.OpPlayerLoadRequest)
	peer.answer(etherproto.LoginCheckResponse{User37: user, Allowed: true}, etherproto.PlayerLoadResponse{User37: user})
	close(accs.gate)
	if got := answered(t, w, c); got != proto.LoginOK {
		t.Fatalf("code %v, want 2", got)
	}
	if m := peer.await(etherproto.OpPlayerLogin).(*etherproto.PlayerLogin); m.User37 != user || m.PID == 0 {
		t.Fatalf("PlayerLogin %+v", m)
	}
}

// A wrong password is answered 3 whatever ether said (no oracle), and the
// login lock an allowed check took is given back at once.
func TestLogin_Early_WrongPassword_Answered3AndLockReleased(t *testing.T) {
	for _, allowed := range []bool{true, false} {
		t.Run(map[bool]string{true: "check allowed", false: "check denied"}[allowed], func(t *testing.T) {
			w, peer, accs := earlyWorld(t)
			c := w.connect("10.0.0.1")
			user := earlyLogin(t, w, peer, c, "wrong")
			close(accs.gate)
			peer.answer(etherproto.LoginCheckResponse{User37: user, Allowed: allowed}, etherproto.PlayerLoadResponse{User37: user})
			if got := answered(t, w, c); got != proto.LoginBadCredentials {
				t.Fatalf("code %v, want 3", got)
			}
			if allowed {
				if m := peer.await(etherproto.OpLoginRelease).(*etherproto.LoginRelease); m.User37 != user {
					t.Fatalf("LoginRelease for %d", m.User37)
				}
			}
			w.tickUntil("nothing pending", func() bool { return len(w.e.pending) == 0 && w.e.unauthed == 0 })
		})
	}
}

// A client that hangs up while its password is verified gives its early
// check's lock back, and no session is started for it.
func TestLogin_Early_Hangup_LockReleased(t *testing.T) {
	w, peer, _ := earlyWorld(t)
	c := w.connect("10.0.0.1")
	user := earlyLogin(t, w, peer, c, "pw")
	c.c.Hangup()
	peer.answer(etherproto.LoginCheckResponse{User37: user, Allowed: true}, etherproto.PlayerLoadResponse{User37: user})
	w.tickUntil("the login gone", func() bool { return len(w.e.pending) == 0 && w.e.authing == 0 })
	if m := peer.await(etherproto.OpLoginRelease).(*etherproto.LoginRelease); m.User37 != user {
		t.Fatalf("LoginRelease for %d", m.User37)
	}
	if n := w.e.Stats().Players; n != 0 {
		t.Fatalf("%d online, want 0", n)
	}
}

// An early check whose password takes longer than EarlyCheckValid to
// verify (a long queue for the hash) is not relied on: ether's lock on
// the player lasts 10 s from the check and could expire before the
// PlayerLogin, and another world could log the player in meanwhile. The
// world gives that lock back and asks again, then logs the player in on
// the fresh answer. Before, the old answer let it in (PlayerLogin at once).
func TestLogin_Early_SlowPassword_CheckedAgain(t *testing.T) {
	w, peer, accs := earlyWorld(t)
	c := w.connect("10.0.0.1")
	user := earlyLogin(t, w, peer, c, "pw")
	peer.await(etherproto.OpPlayerLoadRequest)
	sent := w.now
	peer.answer(etherproto.LoginCheckResponse{User37: user, Allowed: true}, etherproto.PlayerLoadResponse{User37: user})
	w.tickUntil("the early answers in", func() bool { p := w.e.pending[user]; return p.checked && p.loaded })
	for !w.now.After(sent.Add(EarlyCheckValid)) {
		w.tick()
	}
	close(accs.gate)
	w.tickUntil("the password verified", func() bool { p := w.e.pending[user]; return p == nil || p.authed })
	if got, want := peer.opsUntil(etherproto.OpLoginCheck), []etherproto.Op{etherproto.OpLoginRelease, etherproto.OpLoginCheck}; !slices.Equal(got, want) {
		t.Fatalf("the world sent %v, want %v", got, want)
	}
	if got := c.take(); len(got) != 0 {
		t.Fatalf("answered before the fresh check: %v", got)
	}
	peer.answer(etherproto.LoginCheckResponse{User37: user, Allowed: true})
	w.tickUntil("the fresh check allowed", func() bool { return w.e.pending[user].pid != 0 })
	peer.await(etherproto.OpPlayerLoadRequest)
	peer.answer(etherproto.PlayerLoadResponse{User37: user})
	if got := answered(t, w, c); got != proto.LoginOK {
		t.Fatalf("code %v, want 2", got)
	}
}
