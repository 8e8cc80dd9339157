//go:build linux

package main

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/corrosion/corrosion/internal/browsertest"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/testbin"
	"github.com/corrosion/corrosion/worldsrv/terrain"
	"github.com/corrosion/corrosion/worldsrv/world"
)

// pageWait bounds every browser step: generous, for two loaded cores.
const pageWait = 20 * time.Second

// player is one person in one chromium, on one world's browser client.
type player struct {
	t    *testing.T
	tab  context.Context
	name string
}

// run runs chromedp actions on the player's tab, bounded by pageWait.
func (p *player) run(what string, actions ...chromedp.Action) {
	p.t.Helper()
	browsertest.Run(p.t, p.tab, pageWait, p.name+": "+what, actions...)
}

// until polls a JavaScript expression in the page until it is true.
func (p *player) until(what, expr string) {
	p.t.Helper()
	p.run(what, chromedp.Poll(expr, nil, chromedp.WithPollingInterval(50*time.Millisecond)))
}

// eval evaluates a JavaScript expression into out.
func (p *player) eval(what, expr string, out any) {
	p.t.Helper()
	p.run(what, chromedp.Evaluate(expr, out))
}

func (p *player) shot(name string) { p.t.Helper(); browsertest.Screenshot(p.t, p.tab, name) }

// open loads a world's client and waits for its login form.
func (p *player) open(w *proc, number int) {
	p.t.Helper()
	p.run("open the client", chromedp.Navigate(w.http+"/client?world="+strconv.Itoa(number)),
		chromedp.WaitVisible("#login-form"))
}

// login types name and password and presses Play.
func (p *player) login(pass string) {
	p.t.Helper()
	p.run("log in", chromedp.WaitEnabled("#login-name"),
		chromedp.Evaluate(`document.getElementById('login-name').value = ''`, nil), chromedp.SendKeys("#login-name", p.name),
		chromedp.SendKeys("#login-pass", pass), chromedp.Click("#login-go"))
}

// loginAndPlay logs in and waits for the map with the player's own tile.
func (p *player) loginAndPlay(pass string) {
	p.t.Helper()
	p.login(pass)
	p.run("see the game", chromedp.WaitVisible("#map"))
	p.until("own tile shown", `/^\d+, \d+$/.test(document.getElementById('pos').textContent)`)
}

// pos reads the own-tile readout "x, y".
func (p *player) pos() terrain.Point {
	p.t.Helper()
	var s string
	p.eval("read the position", `document.getElementById('pos').textContent`, &s)
	var x, y uint16
	if _, err := fmt.Sscanf(s, "%d, %d", &x, &y); err != nil {
		p.t.Fatalf("%s: position readout %q: %v", p.name, s, err)
	}
	return terrain.Point{X: x, Y: y}
}

// selfMarkerStandsOut checks the player's own marker is big enough to find at a glance:
// the camera follows the player, so the canvas centre holds it; count the marker's
// yellow pixels within 24 CSS px of the centre (the marker was a 6 px dot, smaller than
// the spawn plaza under it).
func selfMarkerStandsOut(t *testing.T, p *player) {
	t.Helper()
	p.until("the map drawn with the player", `(() => { const c = document.getElementById('map');
		const d = c.getContext('2d').getImageData(c.width/2 - 2, c.height/2 - 2, 4, 4).data;
		for (let i = 0; i < d.length; i += 4) if (d[i] === 255 && d[i+1] === 211 && d[i+2] === 77) return true;
		return false; })()`)
	var px struct{ Count, Scale float64 }
	p.eval("count the marker's pixels", `(() => { const c = document.getElementById('map');
		const k = c.width / c.clientWidth, r = Math.round(24 * k);
		const d = c.getContext('2d').getImageData(c.width/2 - r, c.height/2 - r, 2*r, 2*r).data;
		let n = 0;
		for (let i = 0; i < d.length; i += 4) if (d[i] === 255 && d[i+1] === 211 && d[i+2] === 77) n++;
		return {Count: n, Scale: k}; })()`, &px)
	if min := 180 * px.Scale * px.Scale; px.Count < min { // a disc of radius ≥ 8 CSS px
		t.Fatalf("%s: the player's own marker covers %.0f device pixels, want ≥ %.0f (radius ≥ 8 CSS px)", p.name, px.Count, min)
	}
}

// friendWhere is the expression for "the friend row of name says where".
func friendWhere(name, where string) string {
	return fmt.Sprintf(`(() => { const e = document.querySelector('#friends li[data-name=%q] .where');
		return !!e && e.textContent === %q; })()`, name, where)
}

// The browser test against the real binaries: two worlds (nodes 10
// and 11) each spawning its ether sidecar, one NATS, one Postgres; alice on
// world 1's client and bob on world 2's, each in their own chromium.
func TestBrowser_TwoWorldsClient(t *testing.T) {
	ns := natstest.Start(t)
	db := dbFlags(t, pgtest.NewDatabase(t))
	w1 := startSpawningWorld(t, node1, ns.URL(), db)
	w2 := startSpawningWorld(t, node2, ns.URL(), db)
	b := browsertest.New(t)
	alice := &player{t: t, tab: b.Tab(1280, 800), name: "alice"}
	bob := &player{t: t, tab: b.Tab(1280, 800), name: "bob"}

	alice.open(w1, 1)
	alice.shot("world-client-login")
	alice.loginAndPlay("alice-secret")
	bob.open(w2, 2)
	bob.loginAndPlay("bob-secret")
	alice.shot("world-client-game")
	selfMarkerStandsOut(t, alice)

	walk(t, alice)

	alice.run("add bob as a friend", chromedp.SendKeys("#friend-name", "bob"), chromedp.Click("#friend-add button"))
	alice.until("bob online at World 2", friendWhere("bob", "World 2"))
	alice.shot("world-client-friends")
	privateMode(bob, alice)
	ignores(alice)

	// A PM goes to a friend the world saw online (the classic rule), so bob
	// adds alice first (Enter adds), then clicks her row to message her.
	bob.run("add alice as a friend", chromedp.SendKeys("#friend-name", "alice"+kb.Enter))
	bob.until("alice online at World 1", friendWhere("alice", "World 1"))
	bob.run("click alice to message her", chromedp.Click(`#friends li[data-name="alice"] .name`),
		chromedp.WaitVisible("#pm-text"))
	bob.until("the message goes to alice", `document.getElementById('pm-to').value === 'Alice'`)
	bob.run("send the message (Enter sends)", chromedp.SendKeys("#pm-text", "hello from world 2"+kb.Enter))
	bob.until("own message in the chat", `document.querySelector('#chat .msg.out')?.textContent.includes('To Alice: hello from world 2')`)
	alice.until("bob's PM in the chat with his name", `[...document.querySelectorAll('#chat .msg.in')].some(
		li => li.querySelector('.who').textContent.trim() === 'From Bob:' && li.querySelector('.text').textContent === 'hello from world 2')`)
	alice.run("open the chat", chromedp.Click("#tab-btn-chat"), chromedp.WaitVisible("#chat .msg.in"))
	alice.shot("world-client-pm-chat")

	bob.run("log out", chromedp.Click("#logout"), chromedp.WaitVisible("#login-form"))
	bob.until("told he logged out", `document.getElementById('login-error').textContent === 'You logged out.'`)
	alice.run("back to friends", chromedp.Click("#tab-btn-friends"))
	alice.until("bob offline", friendWhere("bob", "Offline"))

	bob.login("wrong-password")
	bob.until("a refused login says why", `document.getElementById('login-error').textContent === 'Invalid username or password.'`)
	bob.shot("world-client-login-error")

	phone(t, b, w1)
	if errs := b.Errors(); len(errs) != 0 {
		t.Fatalf("page errors:\n%s", strings.Join(errs, "\n"))
	}
}

// walk clicks the canvas a few tiles from alice toward a tile the world's
// Step can move to, and waits for her position readout to change.
func walk(t *testing.T, p *player) {
	t.Helper()
	m := terrain.Generate(terrain.DefaultSeed(node1), terrain.BiomeFromSeed(terrain.DefaultSeed(node1)), world.MapSize, world.MapSize)
	from := p.pos()
	dx, dy := 0, 0
	for _, d := range [][2]int{{3, 0}, {0, 3}, {-3, 0}, {0, -3}, {3, 3}, {-3, -3}, {3, -3}, {-3, 3}} {
		x, y := int(from.X)+d[0], int(from.Y)+d[1]
		if !m.In(x, y) {
			continue
		}
		if _, ok := m.Step(from, terrain.Point{X: uint16(x), Y: uint16(y)}); ok {
			dx, dy = d[0], d[1]
			break
		}
	}
	if dx == 0 && dy == 0 {
		t.Fatalf("no walkable direction from %v", from)
	}
	var c []float64 // canvas centre x, y and pixels per tile
	p.eval("measure the canvas", `(() => { const c = document.getElementById('map'), r = c.getBoundingClientRect();
		return [r.left + r.width / 2, r.top + r.height / 2, Number(c.dataset.tilePx)]; })()`, &c)
	if len(c) != 3 || c[2] <= 0 {
		t.Fatalf("canvas measure %v", c)
	}
	p.run("click the map", chromedp.MouseClickXY(c[0]+float64(dx)*c[2], c[1]+float64(dy)*c[2]))
	p.until("own position changes after the click", fmt.Sprintf(`document.getElementById('pos').textContent !== %q`,
		fmt.Sprintf("%d, %d", from.X, from.Y)))
	// Step only moves strictly nearer the target by (Chebyshev, Manhattan).
	tx, ty := int(from.X)+dx, int(from.Y)+dy
	now := p.pos()
	cheb0, man0 := distance(int(from.X), int(from.Y), tx, ty)
	cheb, man := distance(int(now.X), int(now.Y), tx, ty)
	if cheb > cheb0 || (cheb == cheb0 && man >= man0) {
		t.Fatalf("clicked (%d, %d) from %v, but walked to %v: not nearer", tx, ty, from, now)
	}
	t.Logf("alice walked from %v toward (%d, %d): now at %v", from, tx, ty, now)
}

// distance is the (Chebyshev, Manhattan) distance of two tiles.
func distance(ax, ay, bx, by int) (cheb, man int) {
	dx, dy := max(ax-bx, bx-ax), max(ay-by, by-ay)
	return max(dx, dy), dx + dy
}

// privateMode: bob switches private chat Off on his page → alice sees him
// offline; On again → at World 2.
func privateMode(bob, alice *player) {
	bob.run("private chat off", chromedp.Click(`#private-mode button[data-mode="2"]`))
	bob.until("the switch shows Off", `document.querySelector('#private-mode button[data-mode="2"]').getAttribute('aria-pressed') === 'true'`)
	alice.until("bob hidden: offline", friendWhere("bob", "Offline"))
	bob.run("private chat on", chromedp.Click(`#private-mode button[data-mode="0"]`))
	alice.until("bob visible again at World 2", friendWhere("bob", "World 2"))
}

// ignores: alice ignores a name through her page and removes it again.
func ignores(alice *player) {
	alice.run("ignore mallory", chromedp.Click("#tab-btn-ignores"), chromedp.SendKeys("#ignore-name", "mallory"+kb.Enter))
	alice.until("mallory ignored", `!!document.querySelector('#ignores li[data-name="mallory"]')`)
	alice.run("stop ignoring mallory", chromedp.Click(`#ignores li[data-name="mallory"] .remove`))
	alice.until("mallory gone", `!document.querySelector('#ignores li[data-name="mallory"]') && !document.getElementById('ignores-empty').hidden`)
	alice.run("back to friends", chromedp.Click("#tab-btn-friends"))
}

// phone: a third player on a phone in portrait (390×844) on world 1, near
// alice's spawn: the game view, then the social drawer.
func phone(t *testing.T, b *browsertest.Browser, w1 *proc) {
	t.Helper()
	carol := &player{t: t, tab: b.Tab(390, 844), name: "carol"}
	carol.open(w1, 1)
	carol.loginAndPlay("carol-secret")
	carol.shot("world-client-phone")
	carol.run("open the drawer", chromedp.Click("#menu"), chromedp.WaitVisible("#friend-name"))
	carol.until("the drawer is open", `document.getElementById('panel').getBoundingClientRect().top < 844 * 0.5`)
	carol.shot("world-client-phone-drawer")
}

// A world that restarts under a logged-in page: the page says why in words
// and counts down, reconnects by itself once the world is back on the same
// ports, and the player is on the map again — never a frozen page.
func TestBrowser_ReconnectsAfterWorldRestart(t *testing.T) {
	w := start(t, append([]string{"--node-id", "10", "--ether", "off"}, dbFlags(t, pgtest.NewDatabase(t))...)...)
	b := browsertest.New(t)
	dave := &player{t: t, tab: b.Tab(1280, 800), name: "dave"}
	dave.open(w, 1)
	dave.loginAndPlay("dave-secret")
	at := dave.pos()

	w.sigterm()
	dave.until("the page says the world went away and counts down",
		`!document.getElementById('banner').hidden &&
		 document.getElementById('banner-text').textContent.startsWith('The world is shutting down. Reconnecting in') &&
		 document.getElementById('conn').dataset.state !== 'online'`)
	dave.shot("world-client-reconnecting")
	relaunch(t, w).waitReady()
	dave.until("back online by itself", `document.getElementById('conn').dataset.state === 'online' &&
		document.getElementById('banner').hidden`)
	dave.until("on the map again", `/^\d+, \d+$/.test(document.getElementById('pos').textContent)`)
	if again := dave.pos(); again != at {
		t.Fatalf("after the restart dave is at %v, want %v (saved)", again, at)
	}
	if errs := b.Errors(); len(errs) != 0 {
		t.Fatalf("page errors:\n%s", strings.Join(errs, "\n"))
	}
}

// relaunch runs worldsrv again with an exited one's arguments (so on the
// same ports).
func relaunch(t *testing.T, old *proc) *proc {
	t.Helper()
	p := &proc{t: t, cmd: exec.Command(old.cmd.Path, old.cmd.Args[1:]...), out: &testbin.Output{},
		game: old.game, http: old.http, exited: make(chan struct{})}
	p.cmd.Env = testbin.Env()
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("worldsrv (relaunched) output:\n%s", p.out.String())
		}
	})
	return p
}
