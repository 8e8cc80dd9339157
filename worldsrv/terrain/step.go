package terrain

type delta struct{ dx, dy int }

// orthogonal are the four 4-neighbourhood moves.
var orthogonal = [4]delta{{0, -1}, {1, 0}, {0, 1}, {-1, 0}}

// stepOrder is the 8-neighbourhood in Step's tie order: clockwise from north.
var stepOrder = [8]delta{{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}}

// Step is the next tile one step from from toward target, over walkable tiles; false
// when it cannot go on (from is target, from or target is off the map, or every move is
// blocked). It is greedy and deterministic: among the walkable neighbours it takes the
// one nearest the target by Chebyshev distance, then Manhattan distance, then the order
// N, NE, E, SE, S, SW, W, NW; and only a move that brings it strictly nearer by that
// (Chebyshev, Manhattan) order, so a walk always ends. A diagonal move squeezes past
// one blocked orthogonal neighbour but not between two. Step allocates nothing.
func (m *Map) Step(from, target Point) (Point, bool) {
	fx, fy, tx, ty := int(from.X), int(from.Y), int(target.X), int(target.Y)
	if from == target || !m.In(fx, fy) || !m.In(tx, ty) {
		return from, false
	}
	bestCheb, bestMan := distances(fx, fy, tx, ty)
	best := -1
	for k, d := range stepOrder {
		nx, ny := fx+d.dx, fy+d.dy
		if !m.Walkable(nx, ny) {
			continue
		}
		if d.dx != 0 && d.dy != 0 && !m.Walkable(fx+d.dx, fy) && !m.Walkable(fx, fy+d.dy) {
			continue
		}
		cheb, man := distances(nx, ny, tx, ty)
		if cheb < bestCheb || (cheb == bestCheb && man < bestMan) {
			best, bestCheb, bestMan = k, cheb, man
		}
	}
	if best < 0 {
		return from, false
	}
	d := stepOrder[best]
	return Point{X: uint16(fx + d.dx), Y: uint16(fy + d.dy)}, true
}

// distances are the Chebyshev and Manhattan distances between two tiles.
func distances(ax, ay, bx, by int) (cheb, man int) {
	dx, dy := abs(ax-bx), abs(ay-by)
	return max(dx, dy), dx + dy
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
