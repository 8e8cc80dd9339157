package engine

import (
	"strings"

	etherproto "github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// List limits and the texts a player sees.
const (
	MaxFriends = 200
	MaxIgnores = 100

	textOffline     = "That player is currently offline."
	textFriendsFull = "Your friend list is full (200 friends)."
	textIgnoresFull = "Your ignore list is full (100 players)."
)

// playerInput handles one frame from a player.
func (e *Engine) playerInput(p *player, m proto.ClientMessage) {
	switch m := m.(type) {
	case *proto.Logout:
		e.leave(p.c, proto.LogoutRequested)
	case *proto.Walk:
		p.target, p.moving = terrain.Point{X: m.X, Y: m.Y}, true
	case *proto.ChatSettings:
		e.chatSettings(p, *m)
	case *proto.FriendAdd:
		e.friendAdd(p, m.Name)
	case *proto.FriendDel:
		if id, ok := name37(m.Name); ok {
			delete(p.friends, id)
			e.toEther(etherproto.FriendDel{Owner37: p.user37, Friend37: id})
		}
	case *proto.IgnoreAdd:
		e.ignoreAdd(p, m.Name)
	case *proto.IgnoreDel:
		e.ignoreDel(p, m.Name)
	case *proto.PrivateMessage:
		e.privateMessage(p, m)
	case *proto.Keepalive, *proto.Login:
		// Keepalive only refreshes lastHeard; a second Login is ignored.
	}
}

func name37(name string) (uint64, bool) {
	id, err := proto.EncodeName(name)
	return id, err == nil
}

// toEther sends m when the world has a sidecar.
func (e *Engine) toEther(m etherproto.Message) {
	if e.link != nil {
		e.link.Send(m)
	}
}

func (e *Engine) chatSettings(p *player, m proto.ChatSettings) {
	old := p.chat.Private
	p.chat = m
	e.send(p.c, proto.ChatSettingsNow(m))
	if m.Private != old {
		e.toEther(etherproto.ChatModeUpdate{User37: p.user37, PrivateMode: uint8(m.Private)})
	}
}

func (e *Engine) friendAdd(p *player, name string) {
	id, ok := name37(name)
	if !ok || id == p.user37 {
		return
	}
	if _, have := p.friends[id]; have {
		return
	}
	if len(p.friends) >= MaxFriends {
		e.send(p.c, proto.SystemMessage{Text: textFriendsFull})
		return
	}
	p.friends[id] = 0 // offline until ether's UpdateFriendList says otherwise
	e.toEther(etherproto.FriendAdd{Owner37: p.user37, Friend37: id})
}

func (e *Engine) ignoreAdd(p *player, name string) {
	id, ok := name37(name)
	if !ok || id == p.user37 || indexOf(p.ignores, id) >= 0 {
		return
	}
	if len(p.ignores) >= MaxIgnores {
		e.send(p.c, proto.SystemMessage{Text: textIgnoresFull})
		return
	}
	p.ignores = append(p.ignores, id)
	e.toEther(etherproto.IgnoreAdd{Owner37: p.user37, Ignore37: id})
	e.send(p.c, proto.IgnoreList{Names37: p.ignores})
}

func (e *Engine) ignoreDel(p *player, name string) {
	id, ok := name37(name)
	i := indexOf(p.ignores, id)
	if !ok || i < 0 {
		return
	}
	p.ignores = append(p.ignores[:i], p.ignores[i+1:]...)
	e.toEther(etherproto.IgnoreDel{Owner37: p.user37, Ignore37: id})
	e.send(p.c, proto.IgnoreList{Names37: p.ignores})
}

func indexOf(list []uint64, v uint64) int {
	for i, x := range list {
		if x == v {
			return i
		}
	}
	return -1
}

// Held private messages: a PM sent before ether's FriendListComplete for
// the sender waits for it (the world cannot yet tell an online friend from
// an offline one), at most maxHeldPMs per player and heldPMTicks ticks.
const (
	maxHeldPMs  = 8
	heldPMTicks = 10
)

// heldPM is a PM waiting for its sender's friend list.
type heldPM struct {
	name, text string
}

// privateMessage decides a PM now, or holds it while the sender's friend
// list has not arrived and the sidecar is linked (the rule in the package
// doc); with the link down nothing would arrive, so it is decided at once.
func (e *Engine) privateMessage(p *player, m *proto.PrivateMessage) {
	if e.link != nil && !p.listsLoaded && len(p.held) < maxHeldPMs && e.link.Up() {
		if len(p.held) == 0 {
			p.heldSince = e.tick
			e.holding = append(e.holding, p)
		}
		p.held = append(p.held, heldPM{name: strings.Clone(m.Name), text: strings.Clone(m.Text)})
		return
	}
	e.sendPM(p, m.Name, m.Text)
}

// sendPM sends a filtered PM to ether when the target is a friend the world
// last saw online; otherwise the sender hears the target is offline.
func (e *Engine) sendPM(p *player, name, text string) {
	id, ok := name37(name)
	if !ok || p.friends[id] == 0 || e.link == nil {
		e.send(p.c, proto.SystemMessage{Text: textOffline})
		return
	}
	body := e.filter.apply([]byte(text))
	e.link.Send(etherproto.PrivateMessage{Sender37: p.user37, Target37: id, Level: uint8(proto.LevelPlayer), Body: body})
}

// listsLoaded marks p's friend list complete and decides its held PMs.
func (e *Engine) listsLoaded(p *player) {
	p.listsLoaded = true
	e.releaseHeld(p)
}

// releaseHeld decides p's held PMs with what the world knows now.
func (e *Engine) releaseHeld(p *player) {
	held := p.held
	p.held = nil
	for _, m := range held {
		e.sendPM(p, m.name, m.text)
	}
}

// expireHeld decides the PMs held longer than heldPMTicks (their sender's
// friend list is late) and forgets the players that hold none.
func (e *Engine) expireHeld() {
	kept := e.holding[:0]
	for _, p := range e.holding {
		if len(p.held) == 0 || e.byUser[p.user37] != p {
			continue // released, or the player left
		}
		if e.tick-p.heldSince >= heldPMTicks {
			e.releaseHeld(p)
			continue
		}
		kept = append(kept, p)
	}
	clear(e.holding[len(kept):])
	e.holding = kept
}
