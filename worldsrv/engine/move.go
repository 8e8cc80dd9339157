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
	marks    []uint64 // one bit per pid: rings' scratch, all zero between uses
	occupied []int    // tiles whose head is set
}

func newGrid(width, height int) grid {
	w, h := (width+cellSize-1)/cellSize, (height+cellSize-1)/cellSize
	return grid{w: w, h: h, width: width, cells: make([][]*player, w*h),
		head: make([]uint16, width*height), next: make([]uint16, 1<<16), marks: make([]uint64, 1<<16/64)}
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

// build buckets players (by pid, nil for free pids): each cell lists its
// players and each tile chains its occupants in ascending pid order, so a
// lone cell's or tile's keys need no sorting.
func (g *grid) build(players []*player) {
	g.reset()
	for _, p := range players {
		if p != nil {
			i := int(p.pos.Y)/cellSize*g.w + int(p.pos.X)/cellSize
			g.cells[i] = append(g.cells[i], p)
		}
	}
	for i := len(players) - 1; i >= 0; i-- {
		if p := players[i]; p != nil {
			g.addTile(p)
		}
	}
}

// addTile puts p at the head of its tile's chain.
func (g *grid) addTile(p *player) {
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
	e.grid.build(e.players)
	e.near.reset(e.players)
	defer func() { e.info.nearby.Players = nil }()
	for _, p := range e.players {
		if p == nil {
			continue
		}
		// The frames go through e.info by pointer: a value would be
		// copied to the heap on its way into the Message interface, twice
		// per player per tick.
		if p.pos != p.sentPos {
			p.sentPos = p.pos
			e.info.pos = proto.Position{X: p.pos.X, Y: p.pos.Y}
			e.send(p.c, &e.info.pos)
		}
		p.scratch = e.nearby(p, p.scratch[:0])
		if !slices.Equal(p.scratch, p.nearby) {
			e.info.nearby.Players = p.scratch
			e.send(p.c, &e.info.nearby)
			p.nearby, p.scratch = p.scratch, p.nearby
		}
	}
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
