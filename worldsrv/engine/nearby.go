package engine

import (
	"math/bits"
	"slices"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// crowd is the number of players in the cells around a tile above which
// its list walks the tiles ring by ring instead of checking each of them.
const crowd = 512

// tileLimit is how many keys a tile's list keeps: MaxNearby others plus
// the occupant the list is for.
const tileLimit = proto.MaxNearby + 1

// nearCache holds, for one info phase, each occupied tile's list: the keys
// (distance<<16 | pid) of the players within NearbyRadius of the tile,
// occupants included, nearest first then by pid, at most tileLimit. Every
// player on a tile shares it (a spawn crowd stacks many on each tile).
type nearCache struct {
	spans map[int]nearSpan // tile → its keys in arena
	arena []uint32
}

type nearSpan struct{ start, end int }

func (c *nearCache) reset() {
	if c.spans == nil {
		c.spans = map[int]nearSpan{}
	}
	clear(c.spans)
	c.arena = c.arena[:0]
}

// nearby appends to dst the other players within NearbyRadius of p
// (Chebyshev), nearest first (then by pid), at most MaxNearby: its tile's
// list without p.
func (e *Engine) nearby(p *player, dst []proto.NearbyPlayer) []proto.NearbyPlayer {
	x, y := int(p.pos.X), int(p.pos.Y)
	t := y*e.grid.width + x
	span, ok := e.near.spans[t]
	if !ok {
		keys := e.tileKeys(x, y)
		span = nearSpan{start: len(e.near.arena)}
		e.near.arena = append(e.near.arena, keys...)
		span.end = len(e.near.arena)
		e.near.spans[t] = span
	}
	n := 0
	for _, k := range e.near.arena[span.start:span.end] {
		if uint16(k) == p.pid {
			continue
		}
		if n == proto.MaxNearby {
			break
		}
		o := e.players[k&0xffff]
		dst = append(dst, proto.NearbyPlayer{PID: o.pid, Name37: o.user37, X: o.pos.X, Y: o.pos.Y})
		n++
	}
	return dst
}

// tileKeys is tile (x, y)'s list (see nearCache), in e.keys. The grid
// cells the radius touches give the candidates; when they hold a crowd
// (the spawn area at a login rush) the tiles are walked outward ring by
// ring instead, stopping at the ring that completes the list, so a crowd
// costs what the players listed cost rather than all of its pairs.
func (e *Engine) tileKeys(x, y int) []uint32 {
	const r = proto.NearbyRadius
	cx0, cx1 := max(0, (x-r)/cellSize), min(e.grid.w-1, (x+r)/cellSize)
	cy0, cy1 := max(0, (y-r)/cellSize), min(e.grid.h-1, (y+r)/cellSize)
	n := 0
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			n += len(e.grid.cells[cy*e.grid.w+cx])
		}
	}
	keys := e.keys[:0]
	if n > crowd {
		keys = e.rings(x, y, keys)
	} else {
		var perDist distCounts
		for cy := cy0; cy <= cy1; cy++ {
			for cx := cx0; cx <= cx1; cx++ {
				for _, o := range e.grid.cells[cy*e.grid.w+cx] {
					if d := max(abs(x-int(o.pos.X)), abs(y-int(o.pos.Y))); d <= r {
						keys = append(keys, uint32(d)<<16|uint32(o.pid))
						perDist[d]++
					}
				}
			}
		}
		keys = e.sortKeys(keys, &perDist)
	}
	keys = keys[:min(len(keys), tileLimit)]
	e.keys = keys
	return keys
}

// distCounts counts a tile's candidates by distance.
type distCounts [proto.NearbyRadius + 1]int

// sortKeys orders keys as slices.Sort would, far enough for the first
// tileLimit: a counting sort by distance into e.sorted, then each
// distance's pids sorted (the cells list them in pid order, so a bucket
// from one cell is sorted already). It returns the sorted slice and keeps
// the other as scratch.
func (e *Engine) sortKeys(keys []uint32, perDist *distCounts) []uint32 {
	var at distCounts
	total := 0
	for d, c := range perDist {
		at[d] = total
		total += c
	}
	out := slices.Grow(e.sorted[:0], len(keys))[:len(keys)]
	for _, k := range keys {
		d := k >> 16
		out[at[d]] = k
		at[d]++
	}
	begin := 0
	for d := range perDist {
		if begin >= tileLimit {
			break
		}
		end := at[d]
		if bucket := out[begin:end]; !slices.IsSorted(bucket) {
			slices.Sort(bucket)
		}
		begin = end
	}
	e.sorted = keys
	return out
}

// rings appends the keys of the players around tile (x, y), ring by ring,
// until tileLimit or NearbyRadius. Each ring's pids are marked in a bitmap
// (e.grid.marks) and read back in pid order, so no ring needs sorting.
func (e *Engine) rings(x, y int, keys []uint32) []uint32 {
	g := &e.grid
	height := len(g.head) / g.width
	lo, hi := len(g.marks), -1 // the bitmap words marked in this ring
	mark := func(t int) {
		for pid := g.head[t]; pid != 0; pid = g.next[pid] {
			w := int(pid >> 6)
			g.marks[w] |= 1 << (pid & 63)
			lo, hi = min(lo, w), max(hi, w)
		}
	}
	row := func(ty, x0, x1 int) {
		if ty < 0 || ty >= height {
			return
		}
		for tx := max(x0, 0); tx <= min(x1, g.width-1); tx++ {
			mark(ty*g.width + tx)
		}
	}
	col := func(tx, y0, y1 int) {
		if tx < 0 || tx >= g.width {
			return
		}
		for ty := max(y0, 0); ty <= min(y1, height-1); ty++ {
			mark(ty*g.width + tx)
		}
	}
	for d := 0; d <= proto.NearbyRadius && len(keys) < tileLimit; d++ {
		row(y-d, x-d, x+d)
		if d > 0 {
			row(y+d, x-d, x+d)
			col(x-d, y-d+1, y+d-1)
			col(x+d, y-d+1, y+d-1)
		}
		for w := lo; w <= hi; w++ {
			for word := g.marks[w]; word != 0; word &= word - 1 {
				keys = append(keys, uint32(d)<<16|uint32(w<<6+bits.TrailingZeros64(word)))
			}
			g.marks[w] = 0
		}
		lo, hi = len(g.marks), -1
	}
	return keys
}
