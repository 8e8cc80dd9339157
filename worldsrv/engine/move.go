package engine

import (
	"slices"
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// cellSize is the side of a grid cell in tiles; with NearbyRadius 15 a
// player's area of interest touches at most 3×3 cells.
const cellSize = 16

// grid buckets the players by cell, rebuilt each info phase (its slices
// keep their storage from tick to tick).
type grid struct {
	w, h  int // in cells
	cells [][]*player
}

func newGrid(width, height int) grid {
	w, h := (width+cellSize-1)/cellSize, (height+cellSize-1)/cellSize
	return grid{w: w, h: h, cells: make([][]*player, w*h)}
}

func (g *grid) reset() {
	for i := range g.cells {
		clear(g.cells[i])
		g.cells[i] = g.cells[i][:0]
	}
}

func (g *grid) add(p *player) {
	i := int(p.pos.Y)/cellSize*g.w + int(p.pos.X)/cellSize
	g.cells[i] = append(g.cells[i], p)
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

// nearby appends to dst the other players within NearbyRadius of p
// (Chebyshev), nearest first (then by pid), at most MaxNearby.
func (e *Engine) nearby(p *player, dst []proto.NearbyPlayer) []proto.NearbyPlayer {
	const r = proto.NearbyRadius
	x, y := int(p.pos.X), int(p.pos.Y)
	cx0, cx1 := max(0, (x-r)/cellSize), min(e.grid.w-1, (x+r)/cellSize)
	cy0, cy1 := max(0, (y-r)/cellSize), min(e.grid.h-1, (y+r)/cellSize)
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			for _, o := range e.grid.cells[cy*e.grid.w+cx] {
				if o != p && chebyshev(p, o) <= r {
					dst = append(dst, proto.NearbyPlayer{PID: o.pid, Name37: o.user37, X: o.pos.X, Y: o.pos.Y})
				}
			}
		}
	}
	slices.SortFunc(dst, func(a, b proto.NearbyPlayer) int {
		if da, db := dist(p, a), dist(p, b); da != db {
			return da - db
		}
		return int(a.PID) - int(b.PID)
	})
	return dst[:min(len(dst), proto.MaxNearby)]
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
