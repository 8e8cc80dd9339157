package engine

import (
	"time"

	etherproto "github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// player is one player online. Owned by the tick goroutine; in the info
// phase, which waits for them, its workers write the sent* fields (and
// the client's chunk) of the players of their own share.
type player struct {
	pid    uint16
	user37 uint64
	name   string
	c      *Client
	pos    terrain.Point
	target terrain.Point
	moving bool
	chat   proto.ChatSettings

	friends map[uint64]uint8 // friend → node (0 offline or hidden), from ether
	ignores []uint64         // in ether's order
	// listsLoaded: ether's FriendListComplete arrived; until then PMs are
	// held (held, at most maxHeldPMs, the first at tick heldSince).
	listsLoaded bool
	held        []heldPM
	heldSince   uint64

	leaving bool
	reason  proto.LogoutReason

	sentPos terrain.Point // the last Position sent
	// The last Nearby sent: its pids, in two parts, read-only (in the
	// info phase's arenas, which keep them one phase more).
	sentA, sentB []uint16
}

// accept makes c a player: the client hears LoginResponse(2), MapInfo,
// Position and ChatSettings; ether hears ChatModeUpdate and RequestLists.
func (e *Engine) accept(c *Client, acc Account, pid uint16, blob []byte) {
	s, ok, err := decodeSave(blob)
	if err != nil {
		e.counters.badSaves.Add(1)
		e.log.Error("player save does not decode: starting at a spawn", "user", acc.Name, "err", err)
	}
	if !ok || !e.world.Walkable(int(s.Pos.X), int(s.Pos.Y)) {
		s.Pos = e.spawns[acc.User37%uint64(len(e.spawns))]
	}
	p := &player{pid: pid, user37: acc.User37, name: acc.Name, c: c, pos: s.Pos, chat: s.Chat,
		friends: map[uint64]uint8{}, sentPos: s.Pos}
	e.players[pid] = p
	e.byUser[acc.User37] = p
	c.player, c.state = p, statePlaying
	// Its silence counts from this tick: until its answer it waited on the
	// world (a storm's hashing queue can take longer than IdleTimeout).
	if e.lastNow.After(c.lastHeard) {
		c.lastHeard = e.lastNow
	}
	if e.link != nil {
		e.link.Send(etherproto.ChatModeUpdate{User37: acc.User37, PrivateMode: uint8(s.Chat.Private)})
		e.link.Send(etherproto.RequestLists{User37: acc.User37})
	}
	e.counters.logins[proto.LoginOK].Add(1)
	e.send(c, proto.LoginResponse{Code: proto.LoginOK, PID: pid, Node: e.cfg.NodeID})
	e.send(c, proto.MapInfo{Seed: e.world.Seed(), Biome: uint8(e.world.Biome()),
		Width: uint16(e.world.Width()), Height: uint16(e.world.Height())})
	e.send(c, proto.Position{X: s.Pos.X, Y: s.Pos.Y})
	e.send(c, proto.ChatSettingsNow(s.Chat))
	if e.link == nil {
		e.send(c, proto.IgnoreList{})
		e.send(c, proto.FriendListLoaded{})
	}
}

// phaseLogouts saves and removes the players marked to leave.
func (e *Engine) phaseLogouts(time.Time) {
	for _, p := range e.players {
		if p != nil && p.leaving {
			e.logout(p)
		}
	}
}

// logout saves p (position included), tells ether and the client, and
// removes p; its connection is released in cleanup.
func (e *Engine) logout(p *player) {
	// Ether off, or the link down: the save is kept here (a link's
	// Connected sends it on; a login before then loads it from here).
	e.store(p)
	if e.link != nil {
		e.link.Send(etherproto.PlayerLogout{User37: p.user37})
	}
	if !p.c.hungUp() {
		e.send(p.c, proto.LoggedOut{Reason: p.reason})
	}
	delete(e.byUser, p.user37)
	e.players[p.pid] = nil
	e.freePID(p.pid)
	p.c.player, p.c.state = nil, stateClosing
}

// logoutAll ends the world: every player saved with reason "shutting
// down", every pending login answered 14, and the frames handed over.
func (e *Engine) logoutAll(now time.Time) {
	for _, p := range e.players {
		if p != nil {
			p.leaving, p.reason = true, proto.LogoutShutdown
			e.logout(p)
		}
	}
	for _, p := range e.pendingOrder {
		if e.pending[p.acc.User37] == p {
			e.dropPending(p)
			e.answer(p.c, proto.LoginShuttingDown)
		}
	}
	for _, c := range e.clients {
		if c.state != stateClosing {
			c.state = stateClosing
		}
	}
	e.phaseOutputs(now)
	e.phaseCleanup(now)
	e.releaseWriters()
}
