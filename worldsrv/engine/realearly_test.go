package engine

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/corrosion/corrosion/internal/ethertest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/etherlink"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// gatedAccounts is the real account store whose checks wait for the test
// to open their gate: a password "still being verified" for as long as
// the test needs. A check whose context ends first returns its error.
type gatedAccounts struct {
	Accounts
	gate   chan struct{} // closed: every check runs
	active atomic.Int32  // checks running or waiting at the gate
}

func newGatedAccounts(t *testing.T) *gatedAccounts {
	return &gatedAccounts{Accounts: testAccounts(t), gate: make(chan struct{})}
}

func (g *gatedAccounts) Login(ctx context.Context, name, password string) (Account, error) {
	g.active.Add(1)
	defer g.active.Add(-1)
	select {
	case <-g.gate:
	case <-ctx.Done():
		return Account{}, ctx.Err()
	}
	return g.Accounts.Login(ctx, name, password)
}

// linkProxy carries the world's sidecar link to a real ether through a
// loopback socket the test controls, so that the link drops while ether
// (and the login locks it holds) keeps running: cut closes the link and
// refuses new ones until restore; mute drops ether's frames to the world,
// as on a link that died before they arrived.
type linkProxy struct {
	t      *testing.T
	addr   string
	target string
	muted  atomic.Bool
	lost   atomic.Int64 // bytes from ether dropped while muted
	mu     sync.Mutex
	conns  []net.Conn // guarded by mu; both sides of every carried link
	down   bool       // guarded by mu; new connections are closed at once
}

func newLinkProxy(t *testing.T, target string) *linkProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &linkProxy{t: t, addr: ln.Addr().String(), target: target}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			world, err := ln.Accept()
			if err != nil {
				return
			}
			p.carry(world)
		}
	}()
	return p
}

// carry links world to the sidecar, unless the link is cut.
func (p *linkProxy) carry(world net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		world.Close()
		return
	}
	ether, err := net.Dial("tcp", p.target)
	if err != nil {
		world.Close()
		return
	}
	p.conns = append(p.conns, world, ether)
	go func() { _, _ = io.Copy(ether, world); ether.Close() }()
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := ether.Read(buf)
			if n > 0 && p.muted.Load() {
				p.lost.Add(int64(n))
			} else if n > 0 {
				if _, werr := world.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		world.Close()
	}()
}

// cut drops every carried link and refuses new ones until restore.
func (p *linkProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// restore lets the world link again, unmuted.
func (p *linkProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
	p.muted.Store(false)
}

// realEarly is a world whose link to a real ether (login locks held for
// 10 minutes, so that only a release frees one within the test) passes
// through a linkProxy, with its accounts gated; the sidecar announced
// LoginRelease.
type realEarly struct {
	w     *world
	accs  *gatedAccounts
	link  *etherlink.Client
	proxy *linkProxy
}

func newRealEarly(t *testing.T) *realEarly {
	t.Helper()
	sc := ethertest.Start(t, "RS_LEASE_TTL=10m")
	r := &realEarly{accs: newGatedAccounts(t), proxy: newLinkProxy(t, sc.Addr())}
	r.link = startQueryingLink(t, r.proxy.addr)
	r.w = newWorld(t, Config{PendingTicks: 3000}, Deps{Accounts: r.accs, Link: r.link})
	r.w.tickUntil("link up, LoginRelease announced", r.featuresKnown)
	return r
}

// featuresKnown: the link is up and its sidecar announced LoginRelease.
func (r *realEarly) featuresKnown() bool { return r.link.Up() && r.w.e.etherFeatures != 0 }

// early delivers name's login and ticks until it is an early pending
// login (its LoginCheck sent); it returns the client and the name's user37.
func (r *realEarly) early(name string) (*client, uint64) {
	r.w.t.Helper()
	c := r.w.connect("10.0.0.1")
	c.deliver(&proto.Login{Username: name, Password: "pw"})
	user := mustEncode(r.w.t, name)
	r.w.tickUntil(name+"'s early check sent", func() bool { p := r.w.e.pending[user]; return p != nil && p.early })
	return c, user
}

// checked ticks until ether's answer to user's early check arrived.
func (r *realEarly) checked(user uint64) {
	r.w.t.Helper()
	r.w.tickUntil("the early check answered", func() bool { p := r.w.e.pending[user]; return p != nil && p.checked })
}

// answerLost waits until ether answered a muted LoginCheck: its lock is
// taken, and the world will never hear so.
func (r *realEarly) answerLost() {
	r.w.t.Helper()
	const answer = 2 + 1 + 8 + 1 // LoginCheckResponse's frame
	poll.True(r.w.t, wait, "ether's answer lost", func() bool { return r.proxy.lost.Load() >= answer })
}

// openGate lets every account check run.
func (r *realEarly) openGate() { close(r.accs.gate) }

// cutLink cuts the link and ticks until the world handled its loss.
func (r *realEarly) cutLink() {
	r.w.t.Helper()
	r.proxy.cut()
	poll.True(r.w.t, wait, "link down", func() bool { return !r.link.Up() })
	r.w.tickUntil("the loss handled", func() bool { return r.w.e.etherFeatures == 0 })
}

// login logs name in (password "pw") and returns the login's code.
func (r *realEarly) login(name string) proto.LoginCode {
	r.w.t.Helper()
	_, got := r.w.login("10.0.0.2", name, "pw")
	return code(r.w.t, got)
}

// Shutdown while early logins are pending, their checks answered or not:
// each client is answered 14 (shutting down), as every pending login is,
// every lock the early checks took is given back (a world linked next
// logs the same players in at once, though the locks would last 10
// minutes), Run returns, and no account check is left running.
func TestLogin_Early_Shutdown_AnswersAndReleasesEveryLock(t *testing.T) {
	r := newRealEarly(t)
	answeredC, answeredU := r.early("alice")
	r.checked(answeredU)
	r.proxy.muted.Store(true) // bob's check reaches ether; its answer never comes
	unansweredC, unansweredU := r.early("bob")
	r.answerLost()
	for range 3 {
		r.w.tick()
	}
	if p := r.w.e.pending[unansweredU]; p == nil || p.checked {
		t.Fatalf("bob's check answered (%+v): the test needs it pending", p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.w.e.Run(ctx); err != nil { // one tick, then the shutdown
		t.Fatal(err)
	}
	for _, c := range []*client{answeredC, unansweredC} {
		if got := code(t, c.take()); got != proto.LoginShuttingDown {
			t.Fatalf("code %d (%v), want 14", got, got)
		}
		if !c.done() {
			t.Fatal("an answered client is not released")
		}
	}
	poll.True(t, wait, "no account check running", func() bool { return r.accs.active.Load() == 0 })
	poll.True(t, wait, "the releases written", func() bool { return r.link.Stats().OutQueue == 0 })

	// A world linked to the same sidecar next: the locks must be free.
	r.proxy.restore()
	next := newWorld(t, Config{PendingTicks: 3000}, Deps{Accounts: r.accs, Link: r.link})
	r.openGate()
	r.w = next
	for _, name := range []string{"alice", "bob"} {
		if got := r.login(name); got != proto.LoginOK {
			t.Fatalf("%s's next login: code %d (%v), want 2: the early check's lock was not given back", name, got, got)
		}
	}
}

// The link lost while an early login waits for its check (ether took the
// lock; its answer never came), its password verified before the loss or
// after (the link still down): the login is answered 8 (login server
// offline), never left waiting, and once the link is back the player's
// next login gets in. Before, the release of the lock went to a link that
// was down and was lost: the next login was answered 5 (already logged
// in) until the lock expired.
func TestLogin_Early_LinkLost_Answered8_NextLoginGetsIn(t *testing.T) {
	for _, verified := range []string{"before the loss", "after the loss"} {
		t.Run("password verified "+verified, func(t *testing.T) {
			r := newRealEarly(t)
			r.proxy.muted.Store(true)
			c, user := r.early("alice")
			r.answerLost()
			if verified == "before the loss" {
				r.openGate()
				r.w.tickUntil("the password verified", func() bool { p := r.w.e.pending[user]; return p != nil && p.authed })
			}
			r.cutLink()
			if verified == "after the loss" {
				r.openGate()
			}
			if got := answered(t, r.w, c); got != proto.LoginServerOffline {
				t.Fatalf("code %d (%v), want 8", got, got)
			}
			if len(r.w.e.pending) != 0 || r.w.e.unauthed != 0 {
				t.Fatal("the stranded login is still pending")
			}
			r.proxy.restore()
			r.w.tickUntil("link back", r.featuresKnown)
			if got := r.login("alice"); got != proto.LoginOK {
				t.Fatalf("the next login: code %d (%v), want 2", got, got)
			}
		})
	}
}

// The link drops and comes back while an early login's password is
// verified, after ether allowed its check: the login takes the
// verify-first way on the new link, and gets in (before: answered 5,
// its own lock from the lost link still held). The owed release goes out
// when the world sees the link back, or right before the login's new
// LoginCheck when its password is verified first.
func TestLogin_Early_LinkFlapsDuringTheCheck_GetsIn(t *testing.T) {
	for _, first := range []string{"link back first", "password first"} {
		t.Run(first, func(t *testing.T) {
			r := newRealEarly(t)
			c, user := r.early("alice")
			r.checked(user)
			r.cutLink()
			if first == "password first" {
				r.openGate()
				poll.True(t, wait, "the check's result queued", func() bool { return len(r.w.e.auths) == 1 })
				r.proxy.restore()
				poll.True(t, wait, "link back", r.link.Up) // its Connected not yet handled
			} else {
				r.proxy.restore()
				r.w.tickUntil("link back", r.featuresKnown)
				r.openGate()
			}
			if got := answered(t, r.w, c); got != proto.LoginOK {
				t.Fatalf("code %d (%v), want 2", got, got)
			}
			if len(r.w.e.unreleased) != 0 {
				t.Fatalf("releases still owed: %v", r.w.e.unreleased)
			}
		})
	}
}
