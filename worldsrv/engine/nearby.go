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
	spans   map[int]nearSpan // tile → its keys in arena
	arena   []uint32
	entries []proto.NearbyPlayer // by pid: each player's Nearby entry this tick, side by side
}

type nearSpan struct{ start, end int }

// reset empties the cache for a new info phase over players (by pid).
func (c *nearCache) reset(players []*player) {
	if c.spans == nil {
		c.spans = map[int]nearSpan{}
	}
	clear(c.spans)
	c.arena = c.arena[:0]
	c.entries = slices.Grow(c.entries[:0], len(players))[:len(players)]
	for pid, p := range players {
		if p != nil {
			c.entries[pid] = proto.NearbyPlayer{PID: p.pid, Name37: p.user37, X: p.pos.X, Y: p.pos.Y}
		}
	}
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
		dst = append(dst, e.near.entries[k&0xffff])
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
	for d := 0; d <= proto.NearbyRadius && len(keys) < tileLimit; d++ {
		x0, x1 := max(x-d, 0), min(x+d, g.width-1)
		y0, y1 := max(y-d+1, 0), min(y+d-1, height-1)
		span := markSpan{lo: len(g.marks), hi: -1}
		if y-d >= 0 {
			g.mark(&span, (y-d)*g.width+x0, (y-d)*g.width+x1, 1)
		}
		if d > 0 && y+d < height {
			g.mark(&span, (y+d)*g.width+x0, (y+d)*g.width+x1, 1)
		}
		if d > 0 && x-d >= 0 && y0 <= y1 {
			g.mark(&span, y0*g.width+x-d, y1*g.width+x-d, g.width)
		}
		if d > 0 && x+d < g.width && y0 <= y1 {
			g.mark(&span, y0*g.width+x+d, y1*g.width+x+d, g.width)
		}
		for w := span.lo; w <= span.hi; w++ {
			for word := g.marks[w]; word != 0; word &= word - 1 {
				keys = append(keys, uint32(d)<<16|uint32(w<<6+bits.TrailingZeros64(word)))
			}
			g.marks[w] = 0
		}
	}
	return keys
}

// markSpan is the range of bitmap words a ring marked.
type markSpan struct{ lo, hi int }

// mark sets the bit of every occupant of the tiles from t0 to t1 (both
// included) stepping by step, widening s to the words it touched.
func (g *grid) mark(s *markSpan, t0, t1, step int) {
	lo, hi := s.lo, s.hi
	for t := t0; t <= t1; t += step {
		for pid := g.head[t]; pid != 0; pid = g.next[pid] {
			w := int(pid >> 6)
			g.marks[w] |= 1 << (pid & 63)
			lo, hi = min(lo, w), max(hi, w)
		}
	}
	s.lo, s.hi = lo, hi
}
