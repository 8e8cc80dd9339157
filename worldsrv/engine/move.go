package engine

import "time"

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
