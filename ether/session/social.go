package session

import (
	"slices"

	"github.com/corrosion/corrosion/ether/cluster"
	"github.com/corrosion/corrosion/ether/privacy"
	"github.com/corrosion/corrosion/ether/proto"
)

// friendAdd adds friend to owner's list. A full list, a duplicate or
// oneself is a silent no-op. An add answers the world with where owner
// sees the new friend (UpdateFriendList; node 0 when offline or hidden),
// so the client shows the row at once; in Friends mode the friend may now
// see owner.
func (m *Manager) friendAdd(owner, id uint64) {
	s := m.readySession(owner)
	if s == nil || id == owner {
		return
	}
	s.mu.Lock()
	if s.findLocked(id) >= 0 || (s.loaded && len(s.friends) >= MaxFriends) {
		s.mu.Unlock()
		return
	}
	s.friends = append(s.friends, friend{id: id})
	gen := uint32(0)
	mode := s.mode
	m.indexAdd(owner, id)
	s.mu.Unlock()
	m.store.AddFriend(owner, id, MaxFriends)

	node := m.resolve(owner, []uint64{id})[0]
	s.mu.Lock()
	if j := s.findLocked(id); j >= 0 {
		f := &s.friends[j]
		if f.gen == gen {
			f.node = node
		}
		m.send(proto.UpdateFriendList{Target37: owner, Friend37: id, Node: f.node})
	}
	p := s.presenceLocked(m.cfg.NodeID)
	s.mu.Unlock()
	if mode == privacy.Friends {
		m.tell(id, p)
	}
}

// friendDel removes friend from owner's list; an absent one is a silent
// no-op. In Friends mode the former friend stops seeing owner.
func (m *Manager) friendDel(owner, id uint64) {
	s := m.readySession(owner)
	if s == nil {
		return
	}
	s.mu.Lock()
	j := s.findLocked(id)
	if j < 0 {
		loaded := s.loaded
		s.mu.Unlock()
		if !loaded { // the list in memory is not the whole list
			m.store.DelFriend(owner, id)
		}
		return
	}
	s.friends = slices.Delete(s.friends, j, j+1)
	mode := s.mode
	m.indexRemove(owner, id)
	p := s.presenceLocked(m.cfg.NodeID)
	s.mu.Unlock()
	m.store.DelFriend(owner, id)
	if mode == privacy.Friends {
		m.tell(id, p)
	}
}

// ignoreAdd adds to owner's ignore list: full, duplicate or oneself is a
// silent no-op.
func (m *Manager) ignoreAdd(owner, id uint64) {
	s := m.readySession(owner)
	if s == nil || id == owner {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(s.ignores, id) || (s.loaded && len(s.ignores) >= MaxIgnores) {
		return
	}
	s.ignores = append(s.ignores, id)
	m.store.AddIgnore(owner, id, MaxIgnores)
}

// ignoreDel removes from owner's ignore list; absent is a silent no-op.
func (m *Manager) ignoreDel(owner, id uint64) {
	s := m.readySession(owner)
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	j := slices.Index(s.ignores, id)
	if j < 0 {
		if !s.loaded {
			m.store.DelIgnore(owner, id)
		}
		return
	}
	s.ignores = slices.Delete(s.ignores, j, j+1)
	m.store.DelIgnore(owner, id)
}

// chatMode sets the private mode; a change re-notifies the players who
// list this one, an unchanged mode does nothing at all.
func (m *Manager) chatMode(user uint64, mode privacy.Mode) {
	if !mode.Valid() {
		m.log.Warn("ignoring a private mode out of range", "user", user, "mode", mode)
		return
	}
	s := m.readySession(user)
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.mode == mode {
		s.mu.Unlock()
		return
	}
	s.mode = mode
	s.mu.Unlock()
	m.store.SetMode(user, mode)
	m.announce(s)
}

// privateMessage routes a PM to its target's session, wherever it is.
func (m *Manager) privateMessage(pm proto.PrivateMessage) {
	cpm := cluster.PM{Sender: pm.Sender37, Level: pm.Level, Body: pm.Body}
	res := cluster.PMOffline
	switch {
	case m.readySession(pm.Target37) != nil:
		res = m.DeliverPM(pm.Target37, cpm)
	case m.cluster.Connected():
		ctx, cancel := m.opCtx()
		r, err := m.cluster.SendPM(ctx, pm.Target37, cpm)
		cancel()
		if err != nil {
			m.log.Debug("private message not routed", "sender", pm.Sender37, "target", pm.Target37, "err", err)
		}
		res = r
	}
	m.stats.pm(res)
}

// DeliverPM hands a PM to target's world unless target may not receive
// it: offline, ignoring the sender, private Off, or Friends without the
// sender on its list.
func (m *Manager) DeliverPM(target uint64, pm cluster.PM) cluster.PMResult {
	s := m.readySession(target)
	if s == nil {
		return cluster.PMOffline
	}
	s.mu.Lock()
	res := cluster.PMDelivered
	switch {
	case slices.Contains(s.ignores, pm.Sender):
		res = cluster.PMIgnored
	case s.visibleToLocked(pm.Sender): // delivered
	case s.mode == privacy.Friends:
		res = cluster.PMNotFriend
	default:
		res = cluster.PMPrivateOff
	}
	s.mu.Unlock()
	if res != cluster.PMDelivered {
		return res
	}
	msg := proto.MessagePrivate{Recipient37: target, Sender37: pm.Sender, MsgID: m.nextMsgID(), Level: pm.Level, Body: pm.Body}
	if !m.world.Send(msg) {
		return cluster.PMNoWorld
	}
	return cluster.PMDelivered
}
