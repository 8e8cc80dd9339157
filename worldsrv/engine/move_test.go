package engine

import (
	"testing"

	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// walkEnd is where a walk from from toward target stops, and its steps.
func walkEnd(m *terrain.Map, from, target terrain.Point) (terrain.Point, int) {
	steps := 0
	for {
		next, ok := m.Step(from, target)
		if !ok {
			return from, steps
		}
		from, steps = next, steps+1
	}
}

// farTarget is a target tile that a walk from from reaches after at least
// minSteps steps, moving away from from.
func farTarget(t *testing.T, from terrain.Point, minSteps int) terrain.Point {
	t.Helper()
	m := testMap()
	for d := minSteps; d < 60; d++ {
		for _, dir := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}, {1, -1}, {-1, 1}} {
			x, y := int(from.X)+dir[0]*d, int(from.Y)+dir[1]*d
			if !m.In(x, y) {
				continue
			}
			target := terrain.Point{X: uint16(x), Y: uint16(y)}
			if _, steps := walkEnd(m, from, target); steps >= minSteps {
				return target
			}
		}
	}
	t.Fatalf("no walk of %d steps from %+v", minSteps, from)
	return terrain.Point{}
}

// A walk follows terrain.Step one tile a tick, a Position each tick it
// moves, and stops where it cannot go on (an obstacle) on a walkable tile.
func TestMove_StepsAroundObstaclesOneTileATick(t *testing.T) {
	w := offWorld(t, Config{})
	c, got := w.login("10.0.0.1", "runner", "pw")
	c.take()
	p0 := got[2].(*proto.Position)
	m := testMap()
	from := terrain.Point{X: p0.X, Y: p0.Y}
	// A target on an unwalkable tile: the walk ends next to it.
	var target terrain.Point
	found := false
	for d := 1; d < 128 && !found; d++ {
		for x := max(0, int(from.X)-d); x <= min(127, int(from.X)+d) && !found; x++ {
			for _, y := range []int{int(from.Y) - d, int(from.Y) + d} {
				if m.In(x, y) && !m.Walkable(x, y) {
					target, found = terrain.Point{X: uint16(x), Y: uint16(y)}, true
					break
				}
			}
		}
	}
	if !found {
		t.Fatal("no obstacle on the map")
	}
	end, steps := walkEnd(m, from, target)
	if steps == 0 {
		t.Fatalf("walk from %+v to %+v takes no step", from, target)
	}
	c.deliver(&proto.Walk{X: target.X, Y: target.Y})
	at := from
	for i := range steps + 2 {
		w.tick()
		want, ok := m.Step(at, target)
		pos, moved := find[*proto.Position](c.take())
		if !ok {
			if moved {
				t.Fatalf("tick %d: moved to %+v after the walk ended", i, pos)
			}
			continue
		}
		if !moved || (terrain.Point{X: pos.X, Y: pos.Y}) != want {
			t.Fatalf("tick %d: Position %+v (sent %v), want %+v", i, pos, moved, want)
		}
		if !m.Walkable(int(pos.X), int(pos.Y)) {
			t.Fatalf("stands on unwalkable %+v", pos)
		}
		at = want
	}
	if at != end || c.c.player.moving {
		t.Fatalf("ended at %+v (moving %v), want %+v", at, c.c.player.moving, end)
	}
}

// Two players see each other in Nearby (with positions as they change);
// once one walks out of range the other gets an empty list, once.
func TestMove_NearbyAppearsFollowsAndEmptiesOnce(t *testing.T) {
	w := offWorld(t, Config{})
	a, got := w.login("10.0.0.1", "anna", "pw")
	pa := got[2].(*proto.Position)
	b, got := w.login("10.0.0.2", "bert", "pw")
	pb := got[2].(*proto.Position)
	if chebyshevPts(pa, pb) > proto.NearbyRadius {
		t.Fatalf("spawns %+v and %+v are out of range of each other", pa, pb)
	}
	w.tick()
	nb, ok := find[*proto.Nearby](a.take())
	if !ok || len(nb.Players) != 1 || nb.Players[0].PID != b.c.player.pid || nb.Players[0].Name37 != b.c.player.user37 {
		t.Fatalf("anna's Nearby %+v", nb)
	}
	b.take()
	w.tick()
	if _, ok := find[*proto.Nearby](a.take()); ok {
		t.Fatal("Nearby sent again with nothing changed")
	}
	// bert walks away until out of range; anna's list follows him.
	from := b.c.player.pos
	target := awayTarget(t, from, a.c.player.pos)
	b.deliver(&proto.Walk{X: target.X, Y: target.Y})
	empties := 0
	for range 80 {
		w.tick()
		for _, m := range a.take() {
			nb, ok := m.(*proto.Nearby)
			if !ok {
				continue
			}
			switch {
			case len(nb.Players) == 0:
				empties++
			case nb.Players[0].X != b.c.player.pos.X || nb.Players[0].Y != b.c.player.pos.Y:
				t.Fatalf("Nearby shows bert at %d,%d; he is at %+v", nb.Players[0].X, nb.Players[0].Y, b.c.player.pos)
			}
		}
	}
	if empties != 1 {
		t.Fatalf("%d empty Nearby lists, want exactly 1", empties)
	}
	if _, ok := find[*proto.Nearby](b.take()); !ok {
		t.Fatal("bert got no Nearby")
	}
}

func chebyshevPts(a, b *proto.Position) int {
	return max(abs(int(a.X)-int(b.X)), abs(int(a.Y)-int(b.Y)))
}

// awayTarget is a target whose walk from from ends more than NearbyRadius
// from other.
func awayTarget(t *testing.T, from, other terrain.Point) terrain.Point {
	t.Helper()
	m := testMap()
	for y := 0; y < m.Height(); y++ {
		for x := 0; x < m.Width(); x++ {
			target := terrain.Point{X: uint16(x), Y: uint16(y)}
			end, steps := walkEnd(m, from, target)
			if steps < 70 && max(abs(int(end.X)-int(other.X)), abs(int(end.Y)-int(other.Y))) > proto.NearbyRadius+2 {
				return target
			}
		}
	}
	t.Fatalf("no walk from %+v leaves %+v's range", from, other)
	return terrain.Point{}
}
