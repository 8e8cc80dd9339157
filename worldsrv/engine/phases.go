package engine

import (
	"time"

	"github.com/corrosion/corrosion/worldsrv/proto"
)

// phaseWorld advances the world's clock.
func (e *Engine) phaseWorld(time.Time) { e.tick++ }

// phaseNPCs: the world has no NPCs yet.
func (e *Engine) phaseNPCs(time.Time) {}

// phaseZones: ROWS zones will hand players over here.
func (e *Engine) phaseZones(time.Time) {}

// phaseInputs admits the new connections and reads every client's queue.
func (e *Engine) phaseInputs(now time.Time) {
	e.adminInputs(now)
	e.admit(now)
	for _, c := range e.clients {
		if c.state == stateClosing {
			continue
		}
		if c.hungUp() {
			e.disconnected(c)
			continue
		}
		e.readInputs(c, now)
		// A client waiting for its login's answer waits on the world, not
		// idly: only new connections and players time out.
		if (c.state == stateNew || c.state == statePlaying) && now.Sub(c.lastHeard) > e.cfg.IdleTimeout {
			e.counters.idle.Add(1)
			e.leave(c, proto.LogoutIdle)
		}
	}
}

// admit takes the connections Attach queued.
func (e *Engine) admit(now time.Time) {
	for {
		select {
		case c := <-e.accepts:
			c.lastHeard = now
			e.addrs[c.peer]++
			c.overLimit = e.cfg.MaxPerAddress > 0 && e.addrs[c.peer] > e.cfg.MaxPerAddress
			e.clients = append(e.clients, c)
		default:
			return
		}
	}
}

// readInputs handles what c sent since the last tick, at most its queue's
// bound, so a client sending as fast as it can waits for the next tick.
func (e *Engine) readInputs(c *Client, now time.Time) {
	for range e.cfg.InQueue {
		var m proto.ClientMessage
		select {
		case m = <-c.in:
		default:
			return
		}
		c.lastHeard = now
		switch c.state {
		case stateNew:
			login, ok := m.(*proto.Login)
			if !ok {
				e.counters.badFrames.Add(1)
				c.state = stateClosing
				return
			}
			e.startAuth(c, login)
		case statePlaying:
			e.playerInput(c.player, m)
		default:
			// Frames sent before the login's answer are dropped (a
			// classic client sends none).
		}
		if c.state == stateClosing {
			return
		}
	}
}

// disconnected handles a connection that is gone.
func (e *Engine) disconnected(c *Client) {
	if c.flood.Load() {
		e.counters.floods.Add(1)
	}
	e.leave(c, proto.LogoutRequested)
}

// leave marks c's player to be logged out with reason in this tick's
// logouts phase; a client that is not a player is released.
func (e *Engine) leave(c *Client, reason proto.LogoutReason) {
	if c.player == nil {
		if c.state != statePending {
			c.state = stateClosing
		}
		return
	}
	if !c.player.leaving {
		c.player.leaving, c.player.reason = true, reason
	}
}

// phaseOutputs hands every client its frames of this tick.
func (e *Engine) phaseOutputs(time.Time) {
	for _, c := range e.clients {
		e.flush(c)
	}
}

// phaseCleanup releases the connections the engine is done with: their
// writers send what is queued and close.
func (e *Engine) phaseCleanup(time.Time) {
	kept := e.clients[:0]
	for _, c := range e.clients {
		if c.state != stateClosing || c.player != nil {
			kept = append(kept, c)
			continue
		}
		close(c.done)
		if e.addrs[c.peer]--; e.addrs[c.peer] <= 0 {
			delete(e.addrs, c.peer)
		}
	}
	clear(e.clients[len(kept):])
	e.clients = kept
}
