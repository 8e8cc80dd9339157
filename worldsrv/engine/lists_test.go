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
// nearest first, capped at 255.
func TestNearby_GridMatchesAllPairs(t *testing.T) {
	m := testMap()
	for _, n := range []int{1, 2, 50, 300, 600} {
		e := &Engine{world: m, grid: newGrid(m.Width(), m.Height()), players: make([]*player, n+1)}
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		var ps []*player
		for i := range n {
			span := 128
			if n >= 300 {
				span = 20 // more than 255 in range: the cells (300) and the rings (600, a crowd)
			}
			ps = append(ps, &player{pid: uint16(i + 1), user37: uint64(1000 + i),
				pos: terrain.Point{X: uint16(rng.IntN(span)), Y: uint16(rng.IntN(span))}})
			e.grid.add(ps[i])
			e.players[i+1] = ps[i]
		}
		for _, p := range ps {
			got := e.nearby(p, nil)
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
