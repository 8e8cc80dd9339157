package engine

import "github.com/corrosion/corrosion/worldsrv/proto"

// tileIndex holds the players by tile for one info phase: a counting sort
// of the players by tile (row-major, then pid), so the occupants of a run
// of tiles in one row are one contiguous slice of occ, and a summed-area
// table of the counts, so the players in any square are four lookups. It
// is rebuilt each info phase; its slices keep their storage. Only the rows
// from the first occupied one to the last are filled in start and sat (the
// lookups clamp to them), so a phase costs the rows the players are on,
// not the whole map.
type tileIndex struct {
	width, height int
	count         []int32 // per tile: its occupants (zero outside tiles)
	// start, per tile and one past the last: its first occupant's index in
	// occ (rows rowLo to rowHi, and the tile after them).
	start []int32
	// sat, (width+1)×(height+1): the players on tiles [0,x)×[0,y) (rows
	// rowLo to rowHi+1: the rows above hold none, those below all).
	sat   []int32
	occ   []uint32 // x<<16 | pid, by tile, then pid
	tiles []int32  // the occupied tiles
	// The first and last occupied rows (rowLo > rowHi: nobody online).
	rowLo, rowHi int
	// By pid: the player's tile's index in tiles, and its rank among the
	// tile's occupants (pid order).
	tileOf []int32
	rank   []int32
}

func newTileIndex(width, height, maxPID int) tileIndex {
	return tileIndex{width: width, height: height, count: make([]int32, width*height),
		start: make([]int32, width*height+1), sat: make([]int32, (width+1)*(height+1)),
		tileOf: make([]int32, maxPID+1), rank: make([]int32, maxPID+1)}
}

// build indexes players (by pid, nil for free pids).
func (ix *tileIndex) build(players []*player) {
	for _, t := range ix.tiles {
		ix.count[t] = 0
	}
	ix.tiles = ix.tiles[:0]
	ix.rowLo, ix.rowHi = ix.height, -1
	n := 0
	for _, p := range players {
		if p == nil {
			continue
		}
		t := int(p.pos.Y)*ix.width + int(p.pos.X)
		if ix.count[t] == 0 {
			ix.tiles = append(ix.tiles, int32(t))
		}
		ix.count[t]++
		ix.rowLo, ix.rowHi = min(ix.rowLo, int(p.pos.Y)), max(ix.rowHi, int(p.pos.Y))
		n++
	}
	if n == 0 {
		return
	}
	ix.sums()
	if cap(ix.occ) < n {
		ix.occ = make([]uint32, n)
	}
	ix.occ = ix.occ[:n]
	// Players in pid order: each tile's occupants come out in pid order.
	for _, p := range players {
		if p == nil {
			continue
		}
		t := int(p.pos.Y)*ix.width + int(p.pos.X)
		i := ix.start[t+1] // start[t+1] counts tile t's occupants placed so far
		ix.occ[i] = uint32(p.pos.X)<<16 | uint32(p.pid)
		ix.start[t+1]++
	}
	for i, t := range ix.tiles {
		for j, o := range ix.occ[ix.start[t]:ix.start[t+1]] {
			ix.tileOf[uint16(o)], ix.rank[uint16(o)] = int32(i), int32(j)
		}
	}
}

// sums fills sat from count, and start[t+1] with tile t's first index:
// build's placement advances it past tile t's occupants, to tile t+1's
// first index. It covers the rows rowLo to rowHi.
func (ix *tileIndex) sums() {
	w := ix.width
	total := int32(0)
	ix.start[ix.rowLo*w] = 0
	clear(ix.sat[ix.rowLo*(w+1) : (ix.rowLo+1)*(w+1)])
	for y := ix.rowLo; y <= ix.rowHi; y++ {
		row := int32(0)
		above, here := ix.sat[y*(w+1):], ix.sat[(y+1)*(w+1):]
		counts := ix.count[y*w : (y+1)*w]
		next := ix.start[y*w+1 : (y+1)*w+1]
		for x, c := range counts {
			next[x] = total
			total += c
			row += c
			here[x+1] = above[x+1] + row
		}
	}
}

// square is the number of players on the tiles within Chebyshev distance
// d of (x, y), clipped to the map.
func (ix *tileIndex) square(x, y, d int) int32 {
	x0, x1 := max(x-d, 0), min(x+d+1, ix.width)
	y0, y1 := min(max(y-d, ix.rowLo), ix.rowHi+1), min(max(y+d+1, ix.rowLo), ix.rowHi+1)
	s, w := ix.sat, ix.width+1
	return s[y1*w+x1] - s[y0*w+x1] - s[y1*w+x0] + s[y0*w+x0]
}

// radius is the least distance around (x, y) within which at least
// tileLimit players stand, or NearbyRadius, and how many stand within it:
// a binary search, the counts growing with the distance.
func (ix *tileIndex) radius(x, y int) (r int, n int32) {
	lo, hi := 0, proto.NearbyRadius // the answer is in [lo, hi]
	for lo < hi {
		mid := (lo + hi) / 2
		if ix.square(x, y, mid) >= tileLimit {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, ix.square(x, y, lo)
}

// collect puts in keys, which radius sized, a key (distance<<pidBits |
// pid) for every player within distance r of (x, y); their order is the
// tiles' row by row.
func (ix *tileIndex) collect(x, y, r int, pidBits uint, keys []uint32) {
	x0, x1 := max(x-r, 0), min(x+r, ix.width-1)
	sh := pidBits & 31 // a shift the compiler need not check
	i := 0
	for row := max(y-r, ix.rowLo); row <= min(y+r, ix.rowHi); row++ {
		dy := abs(row - y)
		t := row * ix.width
		span := ix.occ[ix.start[t+x0]:ix.start[t+x1+1]]
		out := keys[i : i+len(span)]
		for j, o := range span {
			ox := int(o >> 16)
			out[j] = uint32(max(ox-x, x-ox, dy))<<sh | o&0xffff
		}
		i += len(span)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
