package engine

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

func offWorld(t *testing.T, cfg Config) *world {
	cfg.EtherOff = true
	return newWorld(t, cfg, Deps{Accounts: testAccounts(t)})
}

// With ether off a login is answered from the account check alone, in the
// protocol's order, and the new player stands on a spawn tile.
func TestLogin_EtherOff_SuccessSequence(t *testing.T) {
	w := offWorld(t, Config{})
	_, got := w.login("10.0.0.1", "Zezima", "hunter2")
	if len(got) != 6 {
		t.Fatalf("got %d frames %v, want 6", len(got), got)
	}
	if r := got[0].(*proto.LoginResponse); r.Code != proto.LoginOK || r.PID == 0 || r.Node != 10 {
		t.Fatalf("LoginResponse %+v", r)
	}
	m := testMap()
	if mi := got[1].(*proto.MapInfo); *mi != (proto.MapInfo{Seed: 42, Biome: 0, Width: 128, Height: 128}) {
		t.Fatalf("MapInfo %+v", mi)
	}
	pos := got[2].(*proto.Position)
	spawn := false
	for _, s := range m.Spawns() {
		spawn = spawn || (s == terrain.Point{X: pos.X, Y: pos.Y})
	}
	if !spawn || m.Tile(int(pos.X), int(pos.Y)) != terrain.Spawn {
		t.Fatalf("new player at %+v, not a spawn tile", pos)
	}
	if cs := got[3].(*proto.ChatSettingsNow); *cs != (proto.ChatSettingsNow{}) {
		t.Fatalf("ChatSettings %+v, want all on", cs)
	}
	if _, ok := got[4].(*proto.IgnoreList); !ok {
		t.Fatalf("frame 5 %T, want IgnoreList", got[4])
	}
	if _, ok := got[5].(*proto.FriendListLoaded); !ok {
		t.Fatalf("frame 6 %T, want FriendListLoaded", got[5])
	}
	if st := w.e.Stats(); st.Players != 1 || st.LoginCount(proto.LoginOK) != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestLogin_Refusals(t *testing.T) {
	w := offWorld(t, Config{MaxPlayers: 2, MaxPerAddress: 3})
	w.login("10.0.0.1", "alice", "secret")

	cases := []struct {
		name, user, pass, addr string
		want                   proto.LoginCode
	}{
		{"bad password", "alice", "wrong", "10.0.0.2", proto.LoginBadCredentials},
		{"bad name", "_bad name_", "secret", "10.0.0.2", proto.LoginBadCredentials},
		{"too long password", "carol", "012345678901234567890", "10.0.0.2", proto.LoginBadCredentials},
		{"duplicate on this world", "Alice", "secret", "10.0.0.2", proto.LoginAlreadyOnline},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, got := w.login(tc.addr, tc.user, tc.pass)
			if code := code(t, got); code != tc.want {
				t.Fatalf("code %d (%v), want %d", code, code, tc.want)
			}
			w.tick()
			if !c.done() {
				t.Fatal("refused connection not released")
			}
		})
	}
	w.login("10.0.0.3", "bob", "secret")
	if _, got := w.login("10.0.0.4", "dave", "secret"); code(t, got) != proto.LoginWorldFull {
		t.Fatalf("third player: %v, want world full", got)
	}
	for range 3 {
		w.connect("10.0.0.9")
	}
	if _, got := w.login("10.0.0.9", "erin", "secret"); code(t, got) != proto.LoginTooManyConnections {
		t.Fatalf("4th connection from one address: %v, want 9", got)
	}
	w.e.BeginShutdown()
	if _, got := w.login("10.0.0.5", "frank", "secret"); code(t, got) != proto.LoginShuttingDown {
		t.Fatalf("during shutdown: %v, want 14", got)
	}
	st := w.e.Stats()
	want := map[proto.LoginCode]uint64{proto.LoginOK: 2, proto.LoginBadCredentials: 3, proto.LoginAlreadyOnline: 1,
		proto.LoginWorldFull: 1, proto.LoginTooManyConnections: 1, proto.LoginShuttingDown: 1}
	for code, n := range want {
		if st.LoginCount(code) != n {
			t.Errorf("Logins[%d] = %d, want %d", code, st.LoginCount(code), n)
		}
	}
}

// A first frame other than Login ends the connection, counted.
func TestLogin_FirstFrameMustBeLogin(t *testing.T) {
	w := offWorld(t, Config{})
	c := w.connect("10.0.0.1")
	c.deliver(&proto.Walk{X: 1, Y: 1})
	w.tick()
	if !c.done() || w.e.Stats().BadFrames != 1 {
		t.Fatalf("done %v, stats %+v", c.done(), w.e.Stats())
	}
}

// Logout saves the player (ether off: in memory); the next login starts
// where it left, with its chat settings.
func TestLogout_SavesAndReloginRestores(t *testing.T) {
	w := offWorld(t, Config{})
	c, got := w.login("10.0.0.1", "walker", "pw")
	start := got[2].(*proto.Position)
	target := farTarget(t, terrain.Point{X: start.X, Y: start.Y}, 5)
	c.deliver(&proto.Walk{X: target.X, Y: target.Y})
	c.deliver(&proto.ChatSettings{Public: proto.ChatFriends, Private: proto.ChatOff, Trade: proto.ChatOn})
	for range 3 {
		w.tick()
	}
	p := w.e.byUser[c.c.player.user37]
	at := p.pos
	if at == (terrain.Point{X: start.X, Y: start.Y}) {
		t.Fatal("player did not move")
	}
	c.take()
	c.deliver(&proto.Logout{})
	w.tick()
	if lo, ok := find[*proto.LoggedOut](c.take()); !ok || lo.Reason != proto.LogoutRequested {
		t.Fatalf("no LoggedOut(requested): %v", lo)
	}
	if !c.done() || w.e.Stats().Players != 0 {
		t.Fatal("logged-out player not removed")
	}
	_, got = w.login("10.0.0.1", "walker", "pw")
	if pos := got[2].(*proto.Position); (terrain.Point{X: pos.X, Y: pos.Y}) != at {
		t.Fatalf("relogin at %+v, want %+v", pos, at)
	}
	if cs := got[3].(*proto.ChatSettingsNow); !reflect.DeepEqual(*cs, proto.ChatSettingsNow{Public: 1, Private: 2}) {
		t.Fatalf("relogin chat %+v", cs)
	}
}

// A hang-up is a logout too: saved, removed, released.
func TestLogout_HangupSaves(t *testing.T) {
	w := offWorld(t, Config{})
	c, _ := w.login("10.0.0.1", "leaver", "pw")
	user := c.c.player.user37
	c.c.Hangup()
	w.tick()
	if !c.done() || w.e.byUser[user] != nil || w.e.saves[user] == nil {
		t.Fatalf("done %v, online %v, saved %v", c.done(), w.e.byUser[user] != nil, w.e.saves[user] != nil)
	}
}

// heldAccounts is an account store whose checks wait until release is
// closed, as a storm's logins wait for a hashing slot.
type heldAccounts struct {
	Accounts
	release chan struct{}
}

func (h heldAccounts) Login(ctx context.Context, name, password string) (Account, error) {
	<-h.release
	return h.Accounts.Login(ctx, name, password)
}

// A login whose account check took longer than the idle timeout (queued
// behind a storm's hashes) is a player from its LoginResponse on, not idle
// since its Login frame: before, it was logged out as idle in the tick
// after it got in.
func TestLogin_SlowAccountCheck_NotIdleOnceIn(t *testing.T) {
	held := heldAccounts{Accounts: testAccounts(t), release: make(chan struct{})}
	cfg := Config{NodeID: 10, EtherOff: true, IdleTimeout: 3 * DefaultTickInterval}
	w := newWorld(t, cfg, Deps{Accounts: held})
	c := w.connect("10.0.0.1")
	c.deliver(&proto.Login{Username: "patient", Password: "pw"})
	for range 10 { // 6 s of the world's time: twice the idle timeout
		w.tick()
	}
	close(held.release)
	w.tickUntil("the player in", func() bool { return w.e.Stats().Players == 1 })
	w.tick()
	if c.read(); w.e.Stats().Players != 1 {
		t.Fatalf("the player left the tick after it got in: %v", c.got)
	}
}

// recordingAccounts is heldAccounts that records, in order, the names
// whose account check started.
type recordingAccounts struct {
	heldAccounts
	mu      sync.Mutex
	started []string // guarded by mu
}

func (r *recordingAccounts) Login(ctx context.Context, name, password string) (Account, error) {
	r.mu.Lock()
	r.started = append(r.started, name)
	r.mu.Unlock()
	return r.heldAccounts.Login(ctx, name, password)
}

func (r *recordingAccounts) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.started)
}

// Logins beyond MaxAuthInFlight account checks wait their turn, in arrival
// order, as long as their clients do (not idled out, a hang-up costs no
// hash), and all get in: before, each was answered 13 (could not
// complete) at once, which a storm of a world restart larger than the
// bound met.
func TestLogin_BeyondAuthBound_WaitsItsTurn(t *testing.T) {
	acc := &recordingAccounts{heldAccounts: heldAccounts{Accounts: testAccounts(t), release: make(chan struct{})}}
	cfg := Config{NodeID: 10, EtherOff: true, MaxAuthInFlight: 1, IdleTimeout: 3 * DefaultTickInterval}
	w := newWorld(t, cfg, Deps{Accounts: acc})
	names := []string{"first", "second", "third", "gone", "fifth"}
	clients := map[string]*client{}
	for i, name := range names {
		c := w.connect("10.0.0." + strconv.Itoa(i+1))
		c.deliver(&proto.Login{Username: name, Password: "pw"})
		clients[name] = c
	}
	w.tick()
	clients["gone"].c.Hangup()
	for range 10 { // 6 s of the world's time: twice the idle timeout
		w.tick()
		for name, c := range clients {
			if got := c.take(); len(got) != 0 {
				t.Fatalf("%s answered %d while the checks are held", name, code(t, got))
			}
		}
	}
	poll.True(t, wait, "the first check started", func() bool { return len(acc.names()) > 0 })
	if got := acc.names(); !slices.Equal(got, names[:1]) {
		t.Fatalf("checks started %v, want only the first", got)
	}
	if !clients["gone"].done() {
		t.Fatal("a queued login that hung up is not released")
	}
	close(acc.release)
	// (Counted as answered: the first ones in may idle out meanwhile.)
	w.tickUntil("every waiting login in", func() bool { return w.e.Stats().LoginCount(proto.LoginOK) == 4 })
	for name, c := range clients {
		if name == "gone" {
			continue
		}
		if got := code(t, c.take()); got != proto.LoginOK {
			t.Errorf("%s: code %d (%v), want 2", name, got, got)
		}
	}
	if got, want := acc.names(), []string{"first", "second", "third", "fifth"}; !slices.Equal(got, want) {
		t.Fatalf("checks started %v, want %v (arrival order, none for the hang-up)", got, want)
	}
	if n := w.e.Stats().LoginCount(proto.LoginCouldNotComplete); n != 0 {
		t.Fatalf("%d logins answered 13", n)
	}
}

// A login waiting for a check slot is answered what would have refused it
// at its arrival as soon as that holds: 14 once the world shuts down.
func TestLogin_QueuedLogin_ShutdownAnswers14(t *testing.T) {
	acc := heldAccounts{Accounts: testAccounts(t), release: make(chan struct{})}
	t.Cleanup(func() { close(acc.release) })
	w := newWorld(t, Config{NodeID: 10, EtherOff: true, MaxAuthInFlight: 1}, Deps{Accounts: acc})
	running, queued := w.connect("10.0.0.1"), w.connect("10.0.0.2")
	running.deliver(&proto.Login{Username: "running", Password: "pw"})
	queued.deliver(&proto.Login{Username: "queued", Password: "pw"})
	w.tick()
	if got := queued.take(); len(got) != 0 {
		t.Fatalf("queued login answered %d", code(t, got))
	}
	w.e.BeginShutdown()
	w.tick()
	if got := queued.take(); code(t, got) != proto.LoginShuttingDown {
		t.Fatalf("queued login during shutdown: %v, want 14", got)
	}
}

// The logins waiting for a check slot are bounded by the world's free
// places: one more than that could not get in whatever the passwords, and
// is answered 7 (full) at once rather than held.
func TestLogin_QueueBoundedByFreePlaces(t *testing.T) {
	acc := heldAccounts{Accounts: testAccounts(t), release: make(chan struct{})}
	t.Cleanup(func() { close(acc.release) })
	w := newWorld(t, Config{NodeID: 10, EtherOff: true, MaxAuthInFlight: 1, MaxPlayers: 2}, Deps{Accounts: acc})
	var cs []*client
	for i, name := range []string{"checking", "waiting1", "waiting2", "surplus"} {
		c := w.connect("10.0.0." + strconv.Itoa(i+1))
		c.deliver(&proto.Login{Username: name, Password: "pw"})
		cs = append(cs, c)
	}
	w.tick()
	for i, c := range cs[:3] {
		if got := c.take(); len(got) != 0 {
			t.Fatalf("login %d answered %d, want it checking or waiting", i, code(t, got))
		}
	}
	if got := code(t, cs[3].take()); got != proto.LoginWorldFull {
		t.Fatalf("a login beyond the free places: %d, want 7", got)
	}
}

// The per-address bound counts a peer by its peerkey: addresses in one IPv6
// /64 are one host, and an IPv4-mapped address is its IPv4 address.
func TestLogin_PerAddressCountsByPeerKey(t *testing.T) {
	cases := []struct {
		name  string
		conns []string // fill the bound of 2
		last  string   // over it
	}{
		{"ipv6 one /64", []string{"2001:db8:1:2::1", "2001:db8:1:2::2"}, "2001:db8:1:2:ffff::3"},
		{"ipv4-mapped", []string{"192.0.2.7", "::ffff:192.0.2.7"}, "192.0.2.7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := offWorld(t, Config{MaxPerAddress: 2})
			for _, a := range tc.conns {
				w.connect(a)
			}
			if _, got := w.login(tc.last, "erin", "secret"); code(t, got) != proto.LoginTooManyConnections {
				t.Fatalf("3rd connection from one peer: %v, want 9", got)
			}
			// Another /64 (or another IPv4 address) is another peer.
			if _, got := w.login("2001:db8:1:3::1", "frank", "secret"); code(t, got) != proto.LoginOK {
				t.Fatalf("connection from another peer: %v, want ok", got)
			}
		})
	}
}
