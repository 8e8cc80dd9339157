package engine

import (
	"slices"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// cellSize is the side of a grid cell in tiles; with NearbyRadius 15 a
// player's area of interest touches at most 3×3 cells.
const cellSize = 16

// grid buckets the players by 16-tile cell, and by tile for crowds; it is
// rebuilt each info phase (its slices keep their storage from tick to
// tick).
type grid struct {
	w, h     int // in cells
	width    int // in tiles
	cells    [][]*player
	head     []uint16 // per tile: the pid of its first occupant, 0 none
	next     []uint16 // per pid: the next occupant of the same tile
	occupied []int    // tiles whose head is set
}

func newGrid(width, height int) grid {
	w, h := (width+cellSize-1)/cellSize, (height+cellSize-1)/cellSize
	return grid{w: w, h: h, width: width, cells: make([][]*player, w*h),
		head: make([]uint16, width*height), next: make([]uint16, 1<<16)}
}

func (g *grid) reset() {
	for i := range g.cells {
		clear(g.cells[i])
		g.cells[i] = g.cells[i][:0]
	}
	for _, t := range g.occupied {
		g.head[t] = 0
	}
	g.occupied = g.occupied[:0]
}

func (g *grid) add(p *player) {
	i := int(p.pos.Y)/cellSize*g.w + int(p.pos.X)/cellSize
	g.cells[i] = append(g.cells[i], p)
	t := int(p.pos.Y)*g.width + int(p.pos.X)
	if g.head[t] == 0 {
		g.occupied = append(g.occupied, t)
	}
	g.next[p.pid], g.head[t] = g.head[t], p.pid
}

// phasePlayers moves each walking player one tile toward its target; a
// player leaving this tick stays where its client last saw it.
func (e *Engine) phasePlayers(time.Time) {
	for _, p := range e.players {
		if p == nil || !p.moving || p.leaving {
			continue
		}
		next, ok := e.world.Step(p.pos, p.target)
		if ok {
			p.pos = next
		}
		if !ok || next == p.target {
			p.moving = false
		}
	}
}

// phaseInfo sends each player its Position when it moved and its Nearby
// list when that changed.
func (e *Engine) phaseInfo(time.Time) {
	e.grid.reset()
	for _, p := range e.players {
		if p != nil {
			e.grid.add(p)
		}
	}
	for _, p := range e.players {
		if p == nil {
			continue
		}
		if p.pos != p.sentPos {
			p.sentPos = p.pos
			e.send(p.c, proto.Position{X: p.pos.X, Y: p.pos.Y})
		}
		p.scratch = e.nearby(p, p.scratch[:0])
		if !slices.Equal(p.scratch, p.nearby) {
			e.send(p.c, proto.Nearby{Players: p.scratch})
			p.nearby, p.scratch = p.scratch, p.nearby
		}
	}
}

// crowd is the number of players in the cells around a player above which
// nearby walks the tiles ring by ring instead of checking each of them.
const crowd = 512

// nearby appends to dst the other players within NearbyRadius of p
// (Chebyshev), nearest first (then by pid), at most MaxNearby. The grid
// cells the radius touches give the candidates; when they hold a crowd
// (the spawn area at a login rush) the tiles are walked outward ring by
// ring instead, stopping at the ring that completes MaxNearby, so a crowd
// costs what the players listed cost rather than all of its pairs.
func (e *Engine) nearby(p *player, dst []proto.NearbyPlayer) []proto.NearbyPlayer {
	const r = proto.NearbyRadius
	x, y := int(p.pos.X), int(p.pos.Y)
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
		keys = e.rings(p, keys)
	} else {
		for cy := cy0; cy <= cy1; cy++ {
			for cx := cx0; cx <= cx1; cx++ {
				for _, o := range e.grid.cells[cy*e.grid.w+cx] {
					if d := chebyshev(p, o); d <= r && o != p {
						keys = append(keys, uint32(d)<<16|uint32(o.pid))
					}
				}
			}
		}
		slices.Sort(keys)
	}
	for _, k := range keys[:min(len(keys), proto.MaxNearby)] {
		o := e.players[k&0xffff]
		dst = append(dst, proto.NearbyPlayer{PID: o.pid, Name37: o.user37, X: o.pos.X, Y: o.pos.Y})
	}
	e.keys = keys
	return dst
}

// rings appends the keys (distance<<16 | pid) of the players around p,
// ring by ring (each ring sorted), until MaxNearby or NearbyRadius.
func (e *Engine) rings(p *player, keys []uint32) []uint32 {
	x, y := int(p.pos.X), int(p.pos.Y)
	tile := func(tx, ty int, d uint32) {
		if !e.world.In(tx, ty) {
			return
		}
		for pid := e.grid.head[ty*e.grid.width+tx]; pid != 0; pid = e.grid.next[pid] {
			if pid != p.pid {
				keys = append(keys, d<<16|uint32(pid))
			}
		}
	}
	for d := 0; d <= proto.NearbyRadius && len(keys) < proto.MaxNearby; d++ {
		start := len(keys)
		if d == 0 {
			tile(x, y, 0)
		}
		for i := -d; i <= d && d > 0; i++ {
			tile(x+i, y-d, uint32(d))
			tile(x+i, y+d, uint32(d))
		}
		for i := -d + 1; i <= d-1; i++ {
			tile(x-d, y+i, uint32(d))
			tile(x+d, y+i, uint32(d))
		}
		slices.Sort(keys[start:])
	}
	return keys
}

func chebyshev(p, o *player) int {
	return max(abs(int(p.pos.X)-int(o.pos.X)), abs(int(p.pos.Y)-int(o.pos.Y)))
}

func dist(p *player, o proto.NearbyPlayer) int {
	return max(abs(int(p.pos.X)-int(o.X)), abs(int(p.pos.Y)-int(o.Y)))
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
