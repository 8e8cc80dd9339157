package terrain

import (
	"fmt"
	"testing"
)

var shapeSeeds = []uint64{1, 0xa1b2c3d4, 0xdead0002, DefaultSeed(10), 1 << 63}

// share is the per mille of the map's tiles of the given kinds.
func share(m *Map, kinds ...Tile) int {
	c := m.Counts()
	n := 0
	for _, k := range kinds {
		n += c[k]
	}
	return n * 1000 / (m.Width() * m.Height())
}

// TestGenerate_BiomeShapes checks every biome's tile distribution lies in its range
// (per mille of all tiles) for several seeds.
func TestGenerate_BiomeShapes(t *testing.T) {
	type band struct {
		name   string
		kinds  []Tile
		lo, hi int
	}
	water := []Tile{DeepWater, ShallowWater}
	want := map[Biome][]band{
		Grassland: {{"water", water, 120, 260}, {"forest", []Tile{Forest}, 120, 260}, {"land", []Tile{Land}, 350, 520}, {"mountain", []Tile{Mountain}, 20, 60}},
		Arctic:    {{"hill+mountain", []Tile{Hill, Mountain}, 270, 400}, {"mountain", []Tile{Mountain}, 110, 170}, {"water", water, 100, 200}},
		Desert:    {{"sand", []Tile{Sand}, 420, 620}, {"water", water, 10, 70}, {"forest", []Tile{Forest}, 5, 50}},
		Marshland: {{"shallow", []Tile{ShallowWater}, 280, 450}, {"deep", []Tile{DeepWater}, 30, 80}, {"forest", []Tile{Forest}, 100, 220}},
		Tropic:    {{"water", water, 480, 650}, {"forest", []Tile{Forest}, 100, 200}, {"sand", []Tile{Sand}, 50, 100}},
	}
	for _, seed := range shapeSeeds {
		for b, bands := range want {
			m := Generate(seed, b, DefaultSize, DefaultSize)
			for _, bd := range bands {
				if got := share(m, bd.kinds...); got < bd.lo || got > bd.hi {
					t.Errorf("seed %#x %v: %s = %d‰, want %d–%d‰", seed, b, bd.name, got, bd.lo, bd.hi)
				}
			}
		}
	}
}

// TestGenerate_BiomesCompare checks the biomes against each other, as the ROWS table
// describes them.
func TestGenerate_BiomesCompare(t *testing.T) {
	for _, seed := range shapeSeeds {
		m := map[Biome]*Map{}
		for b := range Biome(NumBiomes) {
			m[b] = Generate(seed, b, DefaultSize, DefaultSize)
		}
		checks := []struct {
			name string
			more bool
		}{
			{"marshland has more shallow water than desert", share(m[Marshland], ShallowWater) > 5*share(m[Desert], ShallowWater)},
			{"desert has the most sand", share(m[Desert], Sand) > 3*share(m[Grassland], Sand) && share(m[Desert], Sand) > 3*share(m[Tropic], Sand)},
			{"desert has the least water", share(m[Desert], DeepWater, ShallowWater) < share(m[Grassland], DeepWater, ShallowWater)},
			{"arctic has the most mountains", share(m[Arctic], Mountain) > 2*share(m[Grassland], Mountain)},
			{"tropic has the most deep water (islands)", share(m[Tropic], DeepWater) > 2*share(m[Grassland], DeepWater)},
			{"tropic land is mostly forest", m[Tropic].Counts()[Forest] > m[Tropic].Counts()[Land]*3/4},
		}
		for _, c := range checks {
			if !c.more {
				t.Errorf("seed %#x: want %s", seed, c.name)
			}
		}
	}
}

// TestGenerate_SpawnsWalkableAndConnected checks the spawn area of many maps: enough
// tiles, all walkable spawn tiles, all reachable from each other over walkable tiles.
func TestGenerate_SpawnsWalkableAndConnected(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2, 3, 4, 5, 6, 7, 0xdead0002, 1 << 63} {
		for b := range Biome(NumBiomes) {
			t.Run(fmt.Sprintf("%#x-%v", seed, b), func(t *testing.T) {
				m := Generate(seed, b, DefaultSize, DefaultSize)
				spawns := m.Spawns()
				if len(spawns) < MinSpawns || len(spawns) != m.Counts()[Spawn] {
					t.Fatalf("%d spawns (%d spawn tiles), want ≥ %d and equal", len(spawns), m.Counts()[Spawn], MinSpawns)
				}
				reach := m.reachable(spawns[0])
				for _, p := range spawns {
					if m.Tile(int(p.X), int(p.Y)) != Spawn || !m.Walkable(int(p.X), int(p.Y)) {
						t.Fatalf("spawn %v is %v", p, m.Tile(int(p.X), int(p.Y)))
					}
					if !reach[int(p.Y)*m.w+int(p.X)] {
						t.Fatalf("spawn %v not reachable from spawn %v", p, spawns[0])
					}
				}
				m.checkResourcesReachable(t, reach)
			})
		}
	}
}

// checkResourcesReachable checks the map has its resource nodes and a player from the
// spawn can reach every one.
func (m *Map) checkResourcesReachable(t *testing.T, reach []bool) {
	t.Helper()
	if got, want := m.Counts()[Resource], len(m.tiles)/resourceEvery; got < want*9/10 {
		t.Errorf("%d resource nodes, want about %d", got, want)
	}
	for i, tile := range m.tiles {
		if tile == Resource && !reach[i] {
			t.Fatalf("resource at (%d,%d) unreachable from the spawn", i%m.w, i/m.w)
		}
	}
}

// reachable marks the tiles a player can reach from p with 8-neighbourhood moves by
// Step's rule (a diagonal needs one of its two orthogonal tiles walkable) — written
// independently of the generator's 4-connected flood fill.
func (m *Map) reachable(p Point) []bool {
	seen := make([]bool, len(m.tiles))
	stack := []Point{p}
	seen[int(p.Y)*m.w+int(p.X)] = true
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := int(c.X), int(c.Y)
		for _, d := range stepOrder {
			nx, ny := x+d.dx, y+d.dy
			if !m.Walkable(nx, ny) || seen[ny*m.w+nx] {
				continue
			}
			if d.dx != 0 && d.dy != 0 && !m.Walkable(x+d.dx, y) && !m.Walkable(x, y+d.dy) {
				continue
			}
			seen[ny*m.w+nx] = true
			stack = append(stack, Point{X: uint16(nx), Y: uint16(ny)})
		}
	}
	return seen
}

// TestGenerate_SmallMapsKeepTheirPromises: on the smallest maps, where the largest
// walkable region may lie away from the middle, the spawn area is still walkable and
// connected, and every resource node is reachable from it.
func TestGenerate_SmallMapsKeepTheirPromises(t *testing.T) {
	for _, size := range [][2]int{{MinSize, MinSize}, {17, 23}, {24, 16}, {33, 33}} {
		for seed := range uint64(40) {
			for b := range Biome(NumBiomes) {
				m := Generate(seed, b, size[0], size[1])
				spawns := m.Spawns()
				if len(spawns) < MinSpawns {
					t.Fatalf("%v %d×%d seed %d: %d spawns", b, size[0], size[1], seed, len(spawns))
				}
				reach := m.reachable(spawns[0])
				for _, p := range spawns {
					if !reach[int(p.Y)*m.w+int(p.X)] {
						t.Fatalf("%v %d×%d seed %d: spawn %v unreachable", b, size[0], size[1], seed, p)
					}
				}
				for i, tile := range m.tiles {
					if tile == Resource && !reach[i] {
						t.Fatalf("%v %d×%d seed %d: resource at (%d,%d) unreachable from the spawn",
							b, size[0], size[1], seed, i%m.w, i/m.w)
					}
				}
			}
		}
	}
}

// TestPlaceSpawn_RegionInACorner: the only land is a corner no seed-derived candidate
// can hit; the spawn area must still join it, and resources must be reachable.
func TestPlaceSpawn_RegionInACorner(t *testing.T) {
	rows := make([]string, 20)
	for y := range rows {
		rows[y] = "~~~~~~~~~~~~~~~~~~~~"
		if y < 3 {
			rows[y] = "...~~~~~~~~~~~~~~~~~"
		}
	}
	m, _, _ := drawn(t, rows...)
	m.seed = 7
	region := m.largestRegion()
	m.placeSpawn(region)
	m.placeResources(region)
	spawns := m.Spawns()
	if len(spawns) < MinSpawns {
		t.Fatalf("%d spawns", len(spawns))
	}
	reach := m.reachable(Point{X: 0, Y: 0})
	for _, p := range spawns {
		if !reach[int(p.Y)*m.w+int(p.X)] {
			t.Fatalf("spawn %v not reachable from the corner land", p)
		}
	}
	m.checkResourcesReachable(t, reach)
}
