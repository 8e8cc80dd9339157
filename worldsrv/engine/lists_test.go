package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// The 201st friend and the 101st ignore get a SystemMessage and change
// nothing.
func TestSocial_ListsFull(t *testing.T) {
	w := offWorld(t, Config{InQueue: 512})
	c, _ := w.login("10.0.0.1", "popular", "pw")
	for i := range MaxFriends + 1 {
		c.deliver(&proto.FriendAdd{Name: "friend" + strconv.Itoa(i)})
	}
	for i := range MaxIgnores + 1 {
		c.deliver(&proto.IgnoreAdd{Name: "ignored" + strconv.Itoa(i)})
	}
	w.tick()
	var texts []string
	lastIgnores := 0
	for _, m := range c.take() {
		switch m := m.(type) {
		case *proto.SystemMessage:
			texts = append(texts, m.Text)
		case *proto.IgnoreList:
			lastIgnores = len(m.Names37)
		}
	}
	if !slices.Equal(texts, []string{textFriendsFull, textIgnoresFull}) {
		t.Fatalf("system messages %q", texts)
	}
	p := c.c.player
	if len(p.friends) != MaxFriends || len(p.ignores) != MaxIgnores || lastIgnores != MaxIgnores {
		t.Fatalf("%d friends, %d ignores (client shown %d)", len(p.friends), len(p.ignores), lastIgnores)
	}
	c.deliver(&proto.IgnoreDel{Name: "ignored0"})
	w.tick()
	if il, ok := find[*proto.IgnoreList](c.take()); !ok || len(il.Names37) != MaxIgnores-1 {
		t.Fatalf("after IgnoreDel: %+v", il)
	}
}

// A save that does not decode starts the player on a spawn, counted.
func TestLogin_GarbageSaveStartsAtSpawn(t *testing.T) {
	w := offWorld(t, Config{})
	user, _ := proto.EncodeName("broken")
	w.e.saves[user] = []byte("not a save at all")
	_, got := w.login("10.0.0.1", "broken", "pw")
	pos, _ := find[*proto.Position](got)
	if testMap().Tile(int(pos.X), int(pos.Y)) != terrain.Spawn || w.e.Stats().BadSaves != 1 {
		t.Fatalf("at %+v (tile %v), stats %+v", pos, testMap().Tile(int(pos.X), int(pos.Y)), w.e.Stats())
	}
}

// The grid's answer equals the all-pairs one for crowds of every density,
// nearest first, capped at 255: spread out, more than 255 in range (the
// cells, then the rings of a crowd), many players on each tile (a spawn
// crowd, each tile's list shared), and more than 255 on one tile.
func TestNearby_GridMatchesAllPairs(t *testing.T) {
	m := testMap()
	for _, tc := range []struct{ n, span int }{{1, 128}, {2, 128}, {50, 128}, {300, 20}, {600, 20}, {900, 6}, {400, 1}} {
		n := tc.n
		e := &Engine{world: m, tiles: newTileIndex(m.Width(), m.Height(), n), lists: newTileLists(n, 1),
			players: make([]*player, n+1)}
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		var ps []*player
		for i := range n {
			ps = append(ps, &player{pid: uint16(i + 1), user37: uint64(1000 + i),
				pos: terrain.Point{X: uint16(rng.IntN(tc.span)), Y: uint16(rng.IntN(tc.span))}})
			e.players[i+1] = ps[i]
		}
		e.tiles.build(e.players)
		e.lists.begin(e.players, len(e.tiles.tiles))
		e.lists.build(&e.tiles, &e.lists.workers[0], 0, len(e.tiles.tiles))
		for _, p := range ps {
			got := listOf(t, e, p)
			var want []proto.NearbyPlayer
			for _, o := range ps {
				if o != p && chebyshev(p, o) <= proto.NearbyRadius {
					want = append(want, proto.NearbyPlayer{PID: o.pid, Name37: o.user37, X: o.pos.X, Y: o.pos.Y})
				}
			}
			slices.SortStableFunc(want, func(a, b proto.NearbyPlayer) int { return dist(p, a) - dist(p, b) })
			want = want[:min(len(want), proto.MaxNearby)]
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d pid %d: grid %d players, all-pairs %d", n, p.pid, len(got), len(want))
			}
		}
	}
}

// A chunk handed back with Recycle carries a later tick's frames: the
// engine builds them in it instead of a new allocation.
func TestClient_RecycledChunkIsReused(t *testing.T) {
	w := offWorld(t, Config{})
	c, _ := w.login("10.0.0.1", "recycler", "pw")
	c.read()
	first := make([]byte, 0, 4096)
	c.c.Recycle(first)
	c.deliver(&proto.ChatSettings{})
	w.tick()
	select {
	case chunk := <-c.c.Outbound():
		if cap(chunk) != cap(first) || &chunk[:1][0] != &first[:1][0] {
			t.Fatalf("chunk of cap %d is not the recycled one (cap %d)", cap(chunk), cap(first))
		}
	default:
		t.Fatal("no chunk after the tick")
	}
}

// The tick only queues chunks; the writers are woken once, after its
// phases, through Ready — and not after a tick that queued nothing.
func TestTick_ReleasesWritersAfterItsPhases(t *testing.T) {
	w := offWorld(t, Config{})
	c, _ := w.login("10.0.0.1", "writer", "pw")
	w.tick()
	c.read()
	ready := c.c.Ready()
	w.tick()
	if len(c.c.Outbound()) != 0 {
		t.Fatal("an idle player got frames")
	}
	select {
	case <-ready:
		t.Fatal("writers released after a tick that queued nothing")
	default:
	}
	c.deliver(&proto.ChatSettings{})
	w.tick()
	if len(c.c.Outbound()) == 0 {
		t.Fatal("no chunk queued for the answer")
	}
	select {
	case <-ready:
	default:
		t.Fatal("writers not released after the tick that queued a chunk")
	}
	select {
	case <-c.c.Ready():
		t.Fatal("the next tick's wake-up is already released")
	default:
	}
	if s := w.e.Stats(); s.Release.Max <= 0 {
		t.Fatalf("release not timed: %+v", s.Release)
	}
}

// listOf is p's Nearby list as the info phase has built it, decoded.
func listOf(t *testing.T, e *Engine, p *player) []proto.NearbyPlayer {
	t.Helper()
	a, b := e.lists.of(&e.tiles, p.pid)
	frame := nearbyFrame{a: a, b: b, entries: e.lists.entries}
	m, err := proto.DecodeWorld(frame.AppendPayload(nil))
	if err != nil {
		t.Fatalf("pid %d: %v", p.pid, err)
	}
	return slices.Clone(m.(*proto.Nearby).Players)
}
