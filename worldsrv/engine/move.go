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
