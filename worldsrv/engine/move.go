package engine

import (
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

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
// list when that changed (see tileLists).
func (e *Engine) phaseInfo(time.Time) {
	e.tiles.build(e.players)
	e.lists.compute(&e.tiles, e.players)
	defer func() { e.info.nearby = nearbyFrame{} }()
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
		a, b := e.lists.of(&e.tiles, p.pid)
		if !sameEntries(p.sentNearby, a, b) {
			e.info.nearby = nearbyFrame{a: a, b: b}
			e.send(p.c, &e.info.nearby)
			p.sentNearby = append(append(p.sentNearby[:0], a...), b...)
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
