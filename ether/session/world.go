package session

import (
	"bytes"
	"time"

	"github.com/corrosion/corrosion/ether/privacy"
	"github.com/corrosion/corrosion/ether/proto"
)

// Handle takes one frame from the world. It never blocks on the network:
// the work is queued on the player's serial queue. msg may alias a read
// buffer; everything kept is copied before Handle returns.
func (m *Manager) Handle(msg proto.Message) {
	switch f := msg.(type) {
	case *proto.WorldRegister:
		if f.NodeID != m.cfg.NodeID {
			m.log.Warn("world registered with a node id other than ours; friends will see ours", "world_node", f.NodeID, "node", m.cfg.NodeID)
		}
	case *proto.PlayerLogin:
		v := *f
		gen := m.adopt(v.User37)
		m.do(v.User37, func() { m.login(v.User37, v.PID, nil, gen) })
	case *proto.PlayerLogout:
		u := f.User37
		m.do(u, func() { m.logout(u) })
	case *proto.FriendAdd:
		v := *f
		m.do(v.Owner37, func() { m.friendAdd(v.Owner37, v.Friend37) })
	case *proto.FriendDel:
		v := *f
		m.do(v.Owner37, func() { m.friendDel(v.Owner37, v.Friend37) })
	case *proto.IgnoreAdd:
		v := *f
		m.do(v.Owner37, func() { m.ignoreAdd(v.Owner37, v.Ignore37) })
	case *proto.IgnoreDel:
		v := *f
		m.do(v.Owner37, func() { m.ignoreDel(v.Owner37, v.Ignore37) })
	case *proto.PrivateMessage:
		v := *f
		v.Body = bytes.Clone(f.Body)
		m.do(v.Sender37, func() { m.privateMessage(v) })
	case *proto.RequestLists:
		u := f.User37
		m.do(u, func() { m.requestLists(u) })
	case *proto.ChatModeUpdate:
		v := *f
		m.do(v.User37, func() { m.chatMode(v.User37, privacy.Mode(v.PrivateMode)) })
	case *proto.PlayerSaveRequest:
		u, data := f.User37, bytes.Clone(f.SaveData)
		m.do(u, func() { m.save(u, data) })
	case *proto.PlayerLoadRequest:
		u := f.User37
		m.do(u, func() { m.loadSave(u) })
	case *proto.PlayerResync:
		v := *f
		gen := m.adopt(v.User37) // now, so that a RefreshAll right behind sees it linked
		m.do(v.User37, func() { m.resync(v.User37, v.PID, privacy.Mode(v.PrivateMode), gen) })
	case *proto.LoginCheck:
		u := f.User37
		m.do(u, func() { m.loginCheck(u) })
	case *proto.LoginRelease:
		u := f.User37
		m.do(u, func() { m.loginRelease(u) }) // behind its LoginCheck on the player's queue
	case *proto.FeatureQuery:
		m.send(proto.Features{Mask: proto.FeatureLoginRelease})
	case *proto.RefreshAll:
		m.refreshAll()
	default:
		m.log.Debug("ignoring a frame sessions do not handle", "op", msg.Op().String())
	}
}

func (m *Manager) do(user uint64, fn func()) {
	if !m.exec.Do(user, fn) {
		m.stats.workDropped.Add(1)
		m.log.Warn("too much work queued; dropping a frame", "user", user, "limit", m.cfg.MaxQueued)
	}
}

// doFor queues fn on the serial queue of s's player, to run only if s is
// still that player's session then. Work that holds a *Session must be
// queued with it: a PlayerLogout queued earlier ends s before fn runs (and
// a PlayerLogin may start another), and an ended session must neither
// send its friends again nor announce itself online.
func (m *Manager) doFor(s *Session, fn func()) {
	m.do(s.user, func() {
		if m.get(s.user) == s { // ending removes s from the map on this queue
			fn()
		}
	})
}

// WorldDown is called when the world link is lost: sessions stay (so
// friends see no flicker) for LinkGrace, waiting for the world to come back
// and resync them; those it does not resync end then.
func (m *Manager) WorldDown() {
	now := time.Now()
	m.mu.Lock()
	m.linkGen++
	m.linkLost = now
	m.mu.Unlock()
	for _, s := range m.all() {
		s.mu.Lock()
		if s.orphaned.IsZero() {
			s.orphaned = now
		}
		s.mu.Unlock()
	}
}

// adopt marks user's session (if any) as belonging to the current link
// and returns that link's generation, for the login that follows
// (attachLocked).
func (m *Manager) adopt(user uint64) linkGen {
	m.mu.RLock()
	gen, s := m.linkGen, m.sessions[user]
	m.mu.RUnlock()
	if s != nil {
		s.mu.Lock()
		s.orphaned = time.Time{}
		s.mu.Unlock()
	}
	return gen
}

// endOrphans ends the sessions whose world link has been gone for longer
// than LinkGrace.
func (m *Manager) endOrphans(now time.Time) {
	for _, s := range m.all() {
		s.mu.Lock()
		expired := !s.orphaned.IsZero() && now.Sub(s.orphaned) > m.cfg.LinkGrace
		s.mu.Unlock()
		if expired {
			m.doFor(s, func() { m.endOrphan(s) })
		}
	}
}

// endOrphan ends s if it is still orphaned past the grace: a resync
// queued before this may have adopted it.
func (m *Manager) endOrphan(s *Session) {
	s.mu.Lock()
	expired := !s.orphaned.IsZero() && time.Since(s.orphaned) > m.cfg.LinkGrace
	s.mu.Unlock()
	if expired {
		m.log.Info("ending a session its world did not resync", "user", s.user)
		m.logout(s.user)
	}
}
