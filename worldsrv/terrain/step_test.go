package terrain

import (
	"fmt"
	"testing"
)

// drawn builds a map from rows of characters: '.' land, '#' mountain, '~' deep water,
// ',' shallow water, 'A' and 'B' land tiles whose positions are returned.
func drawn(t *testing.T, rows ...string) (m *Map, a, b Point) {
	t.Helper()
	m = &Map{w: len(rows[0]), h: len(rows)}
	m.tiles = make([]Tile, m.w*m.h)
	kinds := map[rune]Tile{'.': Land, '#': Mountain, '~': DeepWater, ',': ShallowWater, 'A': Land, 'B': Land}
	for y, row := range rows {
		for x, c := range row {
			k, ok := kinds[c]
			if !ok || len(row) != m.w {
				t.Fatalf("bad map row %q", row)
			}
			m.tiles[y*m.w+x] = k
			switch c {
			case 'A':
				a = Point{X: uint16(x), Y: uint16(y)}
			case 'B':
				b = Point{X: uint16(x), Y: uint16(y)}
			}
		}
	}
	return m, a, b
}

// walk steps from a toward b until Step says stop, checking every step is one tile onto
// a walkable tile; it returns where it ended and the path.
func walk(t *testing.T, m *Map, a, b Point) (Point, []Point) {
	t.Helper()
	path := []Point{a}
	for cur := a; ; {
		next, ok := m.Step(cur, b)
		if !ok {
			if next != cur {
				t.Fatalf("Step(%v) = %v, false: must return from when it stops", cur, next)
			}
			return cur, path
		}
		if dx, dy := abs(int(next.X)-int(cur.X)), abs(int(next.Y)-int(cur.Y)); max(dx, dy) != 1 {
			t.Fatalf("Step(%v) = %v: not one tile", cur, next)
		}
		if !m.Walkable(int(next.X), int(next.Y)) {
			t.Fatalf("Step(%v) = %v: onto %v", cur, next, m.Tile(int(next.X), int(next.Y)))
		}
		path = append(path, next)
		if len(path) > m.w*m.h {
			t.Fatalf("walk from %v to %v does not end: %v", a, b, path)
		}
		cur = next
	}
}

func TestStep(t *testing.T) {
	cases := []struct {
		name     string
		rows     []string
		reaches  bool
		maxSteps int // 0: no limit checked
	}{
		{"open land straight", []string{"A.......B"}, true, 8},
		{"open land diagonal", []string{
			"A....",
			".....",
			".....",
			"....B"}, true, 4},
		{"round a rock", []string{
			".....",
			"A.#.B",
			"....."}, true, 4},
		{"round a pond, squeezing past a corner", []string{
			"......",
			".~~...",
			"A~~..B",
			"......"}, true, 6},
		{"wading through shallow water", []string{"A,,,,B"}, true, 5},
		{"stops at a wall", []string{
			"...#...",
			"A..#..B",
			"...#..."}, false, 0},
		{"stops in a bay (greedy cannot back out)", []string{
			"~~~~~~~",
			"A...~.B",
			"~~~~~~~"}, false, 0},
		{"no squeezing between two diagonal walls", []string{
			"A#",
			"#B"}, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, a, b := drawn(t, c.rows...)
			end, path := walk(t, m, a, b)
			if (end == b) != c.reaches {
				t.Fatalf("walk %v → %v ended at %v (path %v), want reaches=%v", a, b, end, path, c.reaches)
			}
			if c.maxSteps > 0 && len(path)-1 > c.maxSteps {
				t.Errorf("took %d steps, want ≤ %d: %v", len(path)-1, c.maxSteps, path)
			}
		})
	}
}

func TestStep_Edges(t *testing.T) {
	m, a, b := drawn(t,
		"A..",
		"..B")
	if p, ok := m.Step(a, a); ok || p != a {
		t.Errorf("Step at target = %v, %v; want %v, false", p, ok, a)
	}
	off := Point{X: 50, Y: 0}
	if p, ok := m.Step(off, b); ok || p != off {
		t.Errorf("Step from off the map = %v, %v; want it refused", p, ok)
	}
	if p, ok := m.Step(a, off); ok || p != a {
		t.Errorf("Step toward off the map = %v, %v; want it refused", p, ok)
	}
	// Toward a mountain: walks up to it and stops beside it.
	m2, a2, _ := drawn(t, "A...#")
	end, _ := walk(t, m2, a2, Point{X: 4, Y: 0})
	if end != (Point{X: 3, Y: 0}) {
		t.Errorf("walk toward a mountain ended at %v, want {3 0}", end)
	}
}

// TestStep_TieOrder pins the documented tie order: with two equally good moves, the
// first clockwise from north wins.
func TestStep_TieOrder(t *testing.T) {
	m, a, b := drawn(t,
		".....",
		".....",
		"..A.B",
		".....",
		".....")
	// Straight east: E beats NE and SE by Manhattan distance.
	if p, _ := m.Step(a, b); p != (Point{X: 3, Y: 2}) {
		t.Errorf("open: got %v, want E {3 2}", p)
	}
	// E blocked: NE and SE tie on both distances; NE comes first clockwise from north.
	m.tiles[2*5+3] = Mountain
	if p, _ := m.Step(a, b); p != (Point{X: 3, Y: 1}) {
		t.Errorf("E blocked: got %v, want NE {3 1}", p)
	}
	// NE blocked too: SE.
	m.tiles[1*5+3] = Mountain
	if p, _ := m.Step(a, b); p != (Point{X: 3, Y: 3}) {
		t.Errorf("E and NE blocked: got %v, want SE {3 3}", p)
	}
}

// TestStep_NeverOntoUnwalkable walks random pairs on generated maps.
func TestStep_NeverOntoUnwalkable(t *testing.T) {
	for b := range Biome(NumBiomes) {
		m := Generate(uint64(b)+100, b, 96, 96)
		r := newRNG(uint64(b), 1)
		reached := 0
		for range 200 {
			s := m.Spawns()
			from := s[r.intn(len(s))]
			to := Point{X: uint16(r.intn(96)), Y: uint16(r.intn(96))}
			if end, _ := walk(t, m, from, to); end == to {
				reached++
			}
		}
		t.Logf("%v: %d of 200 walks reached their target", b, reached)
		if reached == 0 {
			t.Errorf("%v: no walk reached its target", b)
		}
	}
}

func ExampleMap_Step() {
	m := Generate(1, Grassland, DefaultSize, DefaultSize)
	from := m.Spawns()[0]
	target := Point{X: from.X + 3, Y: from.Y + 1}
	for cur, ok := from, true; ok; {
		cur, ok = m.Step(cur, target)
		if ok {
			fmt.Println(cur.X-from.X, cur.Y-from.Y)
		}
	}
	// Output:
	// 1 1
	// 2 1
	// 3 1
}

// FuzzStep walks on arbitrary 8×8 maps between arbitrary points: every step is one
// tile onto a walkable tile, and every walk ends (walk fails the test otherwise).
func FuzzStep(f *testing.F) {
	f.Add([]byte{3, 3, 6, 0, 3, 3, 6, 1}, uint16(0), uint16(0), uint16(7), uint16(7))
	f.Add([]byte{6, 6, 6, 6}, uint16(1), uint16(1), uint16(6), uint16(2))
	f.Add([]byte{}, uint16(9), uint16(0), uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, tiles []byte, fx, fy, tx, ty uint16) {
		m := &Map{w: 8, h: 8, tiles: make([]Tile, 64)}
		for i := range m.tiles {
			m.tiles[i] = Land
			if i < len(tiles) {
				m.tiles[i] = Tile(tiles[i] % NumTiles)
			}
		}
		from, target := Point{X: fx, Y: fy}, Point{X: tx, Y: ty}
		if !m.In(int(fx), int(fy)) {
			if p, ok := m.Step(from, target); ok || p != from {
				t.Fatalf("Step from off the map = %v, %v", p, ok)
			}
			return
		}
		walk(t, m, from, target)
	})
}
