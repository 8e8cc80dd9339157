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

// nearbyCase is one of TestNearby_EdgeCases: players (pid, x, y) on the
// test map, and the Nearby list, by pid, the player of is sent.
type nearbyCase struct {
	name    string
	players [][3]int
	of      int
	want    []uint16
}

// The lists' edge cases, pinned by pid, and each player's list of every
// case equal to the all-pairs reference: ties at a distance go by pid
// whatever their direction, the tile's own occupants lead (the player
// itself left out), the radius is 15 inclusive on each axis and on the
// diagonal, the map's edges clip the square, the 255 cap cuts a ring
// keeping its lowest pids, and in a pile of more than 256 on one tile the
// players at the list's end and past it get the first 255 others.
func TestNearby_EdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// cap: pid 1 at (60, 60), 80 players on the ring at distance 1 and
	// 240 on the ring at 2, their pids shuffled against their tiles.
	capCase := nearbyCase{name: "cap", players: [][3]int{{1, 60, 60}}, of: 1}
	pids := rng.Perm(320)
	var ring1, ring2 []uint16
	for dy := -2; dy <= 2; dy++ {
		for dx := -2; dx <= 2; dx++ {
			d := max(abs(dx), abs(dy))
			for range []int{0, 10, 15}[d] {
				pid := uint16(pids[0] + 2)
				pids = pids[1:]
				capCase.players = append(capCase.players, [3]int{int(pid), 60 + dx, 60 + dy})
				if d == 1 {
					ring1 = append(ring1, pid)
				} else {
					ring2 = append(ring2, pid)
				}
			}
		}
	}
	slices.Sort(ring1)
	slices.Sort(ring2)
	capCase.want = append(ring1, ring2[:proto.MaxNearby-len(ring1)]...)
	// pile: pids 1 to 300 on (70, 70), pid 301 next to them.
	pile := [][3]int{{301, 71, 70}}
	for pid := 1; pid <= 300; pid++ {
		pile = append(pile, [3]int{pid, 70, 70})
	}
	pidRange := func(lo, hi int) (s []uint16) {
		for pid := lo; pid <= hi; pid++ {
			if pid != 0 {
				s = append(s, uint16(pid))
			}
		}
		return s
	}
	ties := [][3]int{{6, 50, 50}, {3, 50, 50}, {8, 50, 50}, {2, 51, 50}, {7, 50, 52}, {9, 53, 50},
		{4, 47, 47}, {12, 48, 53}, {1, 66, 50}, {10, 65, 35}}
	for _, tc := range []nearbyCase{
		{"ties by pid", ties, 6, []uint16{3, 8, 2, 7, 4, 9, 12, 10}},
		{"ties, a tile's first occupant", ties, 3, []uint16{6, 8, 2, 7, 4, 9, 12, 10}},
		{"radius 15 inclusive", [][3]int{{1, 40, 40}, {2, 55, 40}, {3, 40, 25}, {4, 25, 55},
			{5, 56, 40}, {6, 40, 56}, {7, 24, 24}}, 1, []uint16{2, 3, 4}},
		{"the map's first corner", [][3]int{{5, 0, 0}, {1, 15, 15}, {2, 0, 15}, {3, 16, 0}, {4, 1, 1}},
			5, []uint16{4, 1, 2}},
		{"the map's last corner", [][3]int{{9, 127, 127}, {6, 127, 127}, {7, 112, 112}, {8, 127, 111}},
			9, []uint16{6, 7}},
		{"alone", [][3]int{{1, 10, 10}, {2, 100, 100}}, 1, nil},
		capCase,
		{"pile, its first", pile, 1, pidRange(2, 256)},
		{"pile, the list's last", pile, 256, pidRange(1, 255)},
		{"pile, past the list", pile, 257, pidRange(1, 255)},
		{"pile, its last", pile, 300, pidRange(1, 255)},
		{"next to a pile", pile, 301, pidRange(1, 255)},
	} {
		e := nearbyEngine(tc.players)
		var got []uint16
		for _, o := range listOf(t, e, e.players[tc.of]) {
			got = append(got, o.PID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: pid %d gets %v, want %v", tc.name, tc.of, got, tc.want)
		}
		for _, p := range e.players {
			if p != nil && !slices.Equal(listOf(t, e, p), allPairs(e, p)) {
				t.Errorf("%s: pid %d's list differs from the all-pairs one", tc.name, p.pid)
			}
		}
	}
}

// nearbyEngine is an engine with players (pid, x, y) on the test map and
// its info phase's lists built.
func nearbyEngine(players [][3]int) *Engine {
	m := testMap()
	maxPID := 0
	for _, p := range players {
		maxPID = max(maxPID, p[0])
	}
	e := &Engine{world: m, tiles: newTileIndex(m.Width(), m.Height(), maxPID),
		lists: newTileLists(maxPID, 2), players: make([]*player, maxPID+1)}
	for _, p := range players {
		e.players[p[0]] = &player{pid: uint16(p[0]), user37: uint64(1000 + p[0]),
			pos: terrain.Point{X: uint16(p[1]), Y: uint16(p[2])}}
	}
	e.tiles.build(e.players)
	l := &e.lists
	l.begin(e.players, len(e.tiles.tiles))
	l.share(len(e.tiles.tiles), func(w *listWorker, lo, hi int) { l.build(&e.tiles, w, lo, hi) })
	return e
}

// A lone player gets no Nearby; two together get each other's once, and
// nothing while neither moves; when one leaves, the other gets one empty
// Nearby, and nothing after.
func TestInfo_EmptyNearbySentOnce(t *testing.T) {
	w := newWorld(t, Config{EtherOff: true, MaxPlayers: 10}, Deps{Accounts: noAccounts{}})
	spawn := save{Pos: w.e.spawns[0]}.encode()
	a := w.placeAt(0, spawn)
	nearbys := func(c *client) (n []int) {
		for _, m := range c.take() {
			if nb, ok := m.(*proto.Nearby); ok {
				n = append(n, len(nb.Players))
			}
		}
		return n
	}
	for range 3 {
		w.tick()
	}
	if got := nearbys(a.c); got != nil {
		t.Fatalf("alone: Nearby frames of %v players", got)
	}
	b := w.placeAt(1, spawn)
	for range 3 {
		w.tick()
	}
	if got, got2 := nearbys(a.c), nearbys(b.c); !slices.Equal(got, []int{1}) || !slices.Equal(got2, []int{1}) {
		t.Fatalf("together: Nearby frames of %v and %v players, want one of 1 each", got, got2)
	}
	b.c.c.Hangup()
	w.tickUntil("the second player gone", func() bool { return len(w.e.byUser) == 1 })
	for range 3 {
		w.tick()
	}
	if got := nearbys(a.c); !slices.Equal(got, []int{0}) {
		t.Fatalf("left alone: Nearby frames of %v players, want one empty", got)
	}
}
