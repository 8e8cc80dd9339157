package engine

import (
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

// privateMessage sends a filtered PM to ether when the target is a friend
// the world last saw online; otherwise the sender hears the target is
// offline (the rule in the package doc).
func (e *Engine) privateMessage(p *player, m *proto.PrivateMessage) {
	id, ok := name37(m.Name)
	if !ok || p.friends[id] == 0 || e.link == nil {
		e.send(p.c, proto.SystemMessage{Text: textOffline})
		return
	}
	body := e.filter.apply([]byte(m.Text))
	e.link.Send(etherproto.PrivateMessage{Sender37: p.user37, Target37: id, Level: uint8(proto.LevelPlayer), Body: body})
}
