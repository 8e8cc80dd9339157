package engine

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// infoSim is one player of TestInfo_NearbyMatchesAllPairsOverTicks: its
// test client and the Nearby list it was last sent.
type infoSim struct {
	c    *client
	seen []proto.NearbyPlayer
}

// Over many ticks of random walks, logins (on the spawn tiles, on random
// tiles, hundreds on one tile) and logouts, every client always holds the
// all-pairs list (the players within 15 tiles, nearest first then by pid,
// at most 255), and gets a Nearby exactly in the ticks where it changed.
func TestInfo_NearbyMatchesAllPairsOverTicks(t *testing.T) {
	w := newWorld(t, Config{EtherOff: true, MaxPlayers: 700, OutQueue: 4},
		// Players are placed directly: no account check runs.
		Deps{Accounts: noAccounts{}})
	// Three workers share the phase, whatever the machine's cores.
	w.e.lists = newTileLists(w.e.cfg.MaxPlayers, 3)
	rng := rand.New(rand.NewPCG(10, 11))
	pile := w.e.spawns[0]
	var sims []*infoSim
	for tick := range 120 {
		n := rng.IntN(8)
		if tick == 5 {
			n = 300 // a pile on one tile: more than tileLimit share it
		}
		for range n {
			if len(w.e.byUser) < w.e.cfg.MaxPlayers-10 {
				sims = append(sims, w.placeAt(len(sims), infoStart(rng, w.e, tick, pile)))
			}
		}
		sims = w.wanderAndLeave(rng, sims)
		w.tick()
		for _, s := range sims {
			checkNearby(t, w.e, tick, s)
		}
	}
}

// infoStart is where a player of the test logs in: a spawn tile (no
// save), the pile at tick 5, or a random walkable tile.
func infoStart(rng *rand.Rand, e *Engine, tick int, pile terrain.Point) []byte {
	switch {
	case tick == 5:
		return save{Pos: pile}.encode()
	case rng.IntN(2) == 0:
		return nil
	}
	for {
		x, y := rng.IntN(e.world.Width()), rng.IntN(e.world.Height())
		if e.world.Walkable(x, y) {
			return save{Pos: terrain.Point{X: uint16(x), Y: uint16(y)}}.encode()
		}
	}
}

// placeAt logs player i in directly, from blob (a save, or nil).
func (w *world) placeAt(i int, blob []byte) *infoSim {
	w.t.Helper()
	c := w.connect("10.1." + strconv.Itoa(i/250) + "." + strconv.Itoa(i%250))
	w.e.admit(w.now)
	w.e.accept(c.c, Account{User37: uint64(5000 + i), Name: "sim" + strconv.Itoa(i)}, w.e.allocPID(), blob)
	return &infoSim{c: c}
}

// wanderAndLeave sends about one player in eight a walk (near or far) and
// hangs up about one in a hundred, who are dropped from sims.
func (w *world) wanderAndLeave(rng *rand.Rand, sims []*infoSim) []*infoSim {
	kept := sims[:0]
	for _, s := range sims {
		p := s.c.c.player
		switch r := rng.IntN(100); {
		case r == 0:
			s.c.c.Hangup()
			continue
		case r < 10:
			s.c.deliver(&proto.Walk{X: reach(rng, p.pos.X, swarmReach, w.e.world.Width()),
				Y: reach(rng, p.pos.Y, swarmReach, w.e.world.Height())})
		case r < 13:
			s.c.deliver(&proto.Walk{X: uint16(rng.IntN(w.e.world.Width())), Y: uint16(rng.IntN(w.e.world.Height()))})
		}
		kept = append(kept, s)
	}
	return kept
}

// checkNearby takes what s's client got in the tick: a Nearby must come
// when, and only when, its all-pairs list changed, and be that list.
func checkNearby(t *testing.T, e *Engine, tick int, s *infoSim) {
	t.Helper()
	p := s.c.c.player
	want := allPairs(e, p)
	var got []*proto.Nearby
	for _, m := range s.c.take() {
		if nb, ok := m.(*proto.Nearby); ok {
			got = append(got, nb)
		}
	}
	changed := !slices.Equal(want, s.seen)
	switch {
	case len(got) > 1:
		t.Fatalf("tick %d pid %d: %d Nearby frames in one tick", tick, p.pid, len(got))
	case len(got) == 0 && changed:
		t.Fatalf("tick %d pid %d: no Nearby, but its list changed (%d → %d players)", tick, p.pid, len(s.seen), len(want))
	case len(got) == 1 && !changed:
		t.Fatalf("tick %d pid %d: a Nearby of %d players, but its list did not change", tick, p.pid, len(want))
	case len(got) == 1 && !slices.Equal(got[0].Players, want):
		t.Fatalf("tick %d pid %d: Nearby of %d players, all-pairs %d (or their order or fields differ)",
			tick, p.pid, len(got[0].Players), len(want))
	}
	s.seen = want
}

// allPairs is p's Nearby list from every pair: the others within
// NearbyRadius, nearest first then by pid, at most MaxNearby.
func allPairs(e *Engine, p *player) []proto.NearbyPlayer {
	var list []proto.NearbyPlayer
	for _, o := range e.players {
		if o != nil && o != p && chebyshev(p, o) <= proto.NearbyRadius {
			list = append(list, proto.NearbyPlayer{PID: o.pid, Name37: o.user37, X: o.pos.X, Y: o.pos.Y})
		}
	}
	slices.SortFunc(list, func(a, b proto.NearbyPlayer) int {
		return cmp.Or(cmp.Compare(dist(p, a), dist(p, b)), cmp.Compare(a.PID, b.PID))
	})
	return list[:min(len(list), proto.MaxNearby)]
}

// radixSort sorts like slices.Sort for keys of two and of three bytes,
// with repeats, and for none or one, writing each key's masked bits.
func TestRadixSort_SortsLikeSlicesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var tmp []uint32
	for _, tc := range []struct {
		bits uint
		n    int
	}{{15, 300}, {16, 1000}, {17, 1000}, {20, 700}, {20, 1}, {14, 0}, {9, 50}, {8, 50}, {3, 5}} {
		keys := make([]uint32, tc.n)
		for i := range keys {
			keys[i] = uint32(rng.IntN(1 << tc.bits))
		}
		var want []uint16
		for _, k := range slices.Sorted(slices.Values(keys)) {
			want = append(want, uint16(k&0x7ff))
		}
		got := make([]uint16, tc.n)
		tmp = radixSort(keys, tmp, 1<<tc.bits, got, 0x7ff)
		if !slices.Equal(got, want) {
			t.Fatalf("%d keys of %d bits: not sorted", tc.n, tc.bits)
		}
	}
}

// chebyshev is the distance between two players, in tiles.
func chebyshev(p, o *player) int {
	return max(abs(int(p.pos.X)-int(o.pos.X)), abs(int(p.pos.Y)-int(o.pos.Y)))
}

// dist is the distance between a player and a Nearby entry, in tiles.
func dist(p *player, o proto.NearbyPlayer) int {
	return max(abs(int(p.pos.X)-int(o.X)), abs(int(p.pos.Y)-int(o.Y)))
}

// Property: on randomised crowds (a few clusters of random spread and
// size, pids drawn sparsely from pid spaces whose sort keys take two
// bytes and three, on several workers), every player's Nearby frame is
// byte for byte the one a straightforward all-pairs computation encodes,
// over several phases of the same lists (players moving, leaving and
// coming back between them).
func TestNearby_RandomCrowdsMatchReference(t *testing.T) {
	m := testMap()
	rng := rand.New(rand.NewPCG(21, 22))
	for round := range 24 {
		maxPID := []int{40, 700, 2000, 5000, 65535}[round%5]
		n := 1 + rng.IntN(min(maxPID, 1200))
		e := &Engine{world: m, tiles: newTileIndex(m.Width(), m.Height(), maxPID),
			lists: newTileLists(maxPID, 1+round%3), players: make([]*player, maxPID+1)}
		var ps []*player
		for _, pid := range rng.Perm(maxPID)[:n] {
			p := &player{pid: uint16(pid + 1), user37: rng.Uint64()}
			ps = append(ps, p)
			e.players[p.pid] = p
		}
		clusters := make([][3]int, 1+rng.IntN(4)) // x, y, spread
		for i := range clusters {
			clusters[i] = [3]int{rng.IntN(m.Width()), rng.IntN(m.Height()), []int{0, 1, 3, 8, 20, 128}[rng.IntN(6)]}
		}
		place := func(p *player) {
			c := clusters[rng.IntN(len(clusters))]
			p.pos = terrain.Point{X: uint16(min(max(c[0]+rng.IntN(2*c[2]+1)-c[2], 0), m.Width()-1)),
				Y: uint16(min(max(c[1]+rng.IntN(2*c[2]+1)-c[2], 0), m.Height()-1))}
		}
		for _, p := range ps {
			place(p)
		}
		for phase := range 3 {
			if phase > 0 {
				for _, p := range ps {
					switch rng.IntN(4) {
					case 0:
						place(p)
					case 1:
						e.players[p.pid] = nil // offline this phase
					default:
						e.players[p.pid] = p
					}
				}
			}
			e.tiles.build(e.players)
			l := &e.lists
			l.begin(e.players, len(e.tiles.tiles))
			l.share(len(e.tiles.tiles), func(w *listWorker, lo, hi int) { l.build(&e.tiles, w, lo, hi) })
			for _, p := range e.players {
				if p == nil {
					continue
				}
				a, b := l.of(&e.tiles, p.pid)
				got := (&nearbyFrame{a: a, b: b, entries: l.entries}).AppendPayload(nil)
				want := (&proto.Nearby{Players: allPairs(e, p)}).AppendPayload(nil)
				if !slices.Equal(got, want) {
					t.Fatalf("round %d (%d players, pids to %d) phase %d pid %d at %v: Nearby differs from the reference",
						round, n, maxPID, phase, p.pid, p.pos)
				}
			}
		}
	}
}
