package session

import (
	"github.com/corrosion/corrosion/ether/cluster"
	"github.com/corrosion/corrosion/ether/proto"
)

var _ cluster.Handler = (*Manager)(nil)

// requestLists sends, in order: one UpdateFriendList per friend, the
// presence broadcast to the players who list this one, UpdateIgnoreList,
// FriendListComplete.
func (m *Manager) requestLists(user uint64) {
	s := m.readySession(user)
	if s == nil {
		m.log.Debug("lists requested for a player without a session", "user", user)
		return
	}
	m.sendFriends(s)
	m.announce(s)
	s.mu.Lock()
	ignores := make([]uint64, len(s.ignores))
	copy(ignores, s.ignores)
	s.mu.Unlock()
	m.send(proto.UpdateIgnoreList{Target37: user, Ignores: ignores})
	m.send(proto.FriendListComplete{Target37: user})
}

// report says which friends a refresh tells the world about.
type report uint8

const (
	reportEvery   report = iota // every friend looked up (the lists, RefreshAll)
	reportChanged               // only those whose node changed (node up)
)

// sendFriends looks up every friend of s and tells the world where each is.
func (m *Manager) sendFriends(s *Session) {
	m.refreshFriends(s, func(friend) bool { return true }, reportEvery)
}

// refreshOffline looks up the friends s shows offline and tells the world
// about those found online (or visible) now.
func (m *Manager) refreshOffline(s *Session) {
	m.refreshFriends(s, func(f friend) bool { return f.node == 0 }, reportChanged)
}

// refreshFriends looks up the friends of s that pick selects and tells
// the world where each is, as rep says. A presence update that arrives
// while the lookup is in flight wins over the lookup's answer.
func (m *Manager) refreshFriends(s *Session, pick func(friend) bool, rep report) {
	s.mu.Lock()
	var ids []uint64
	var gens []uint32
	for _, f := range s.friends {
		if pick(f) {
			ids = append(ids, f.id)
			gens = append(gens, f.gen)
		}
	}
	s.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	nodes := m.resolve(s.user, ids)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, id := range ids {
		j := s.findLocked(id)
		if j < 0 {
			continue // deleted meanwhile
		}
		f := &s.friends[j]
		changed := false
		if f.gen == gens[i] {
			changed = f.node != nodes[i]
			f.node = nodes[i]
		}
		if rep == reportEvery || changed {
			m.send(proto.UpdateFriendList{Target37: s.user, Friend37: id, Node: f.node})
		}
	}
}

// resolve finds the node at which asker sees each of users: local
// sessions directly, the others with one pipelined cluster lookup.
func (m *Manager) resolve(asker uint64, users []uint64) []uint8 {
	out := make([]uint8, len(users))
	var remote []uint64
	var where []int
	for i, u := range users {
		if t := m.readySession(u); t != nil {
			t.mu.Lock()
			out[i] = t.visibleLocked(m.cfg.NodeID, asker)
			t.mu.Unlock()
			continue
		}
		remote = append(remote, u)
		where = append(where, i)
	}
	if len(remote) == 0 || !m.cluster.Connected() {
		return out
	}
	res := make([]uint8, len(remote))
	ctx, cancel := m.opCtx()
	defer cancel()
	if err := m.cluster.Lookup(ctx, asker, remote, res); err != nil {
		m.log.Debug("presence lookup incomplete", "user", asker, "err", err)
	}
	for k, i := range where {
		out[i] = res[k]
	}
	return out
}

// announce tells the players who list s where it is now. Call it from
// s's serial queue only, so that its announcements stay in order.
func (m *Manager) announce(s *Session) {
	s.mu.Lock()
	p := s.presenceLocked(m.cfg.NodeID)
	s.mu.Unlock()
	m.announcePresence(p)
}

// announcePresence applies p to local sessions first (so that frames to
// our own world keep their order), then broadcasts it to the other nodes.
func (m *Manager) announcePresence(p cluster.Presence) {
	m.applyLocal(p, 0)
	if m.cluster.Connected() {
		if err := m.cluster.Broadcast(p); err != nil {
			m.log.Debug("presence broadcast failed", "user", p.User, "err", err)
		}
	}
}

// tell sends p to one player only, local or remote.
func (m *Manager) tell(target uint64, p cluster.Presence) {
	if m.get(target) != nil {
		m.applyLocal(p, target)
		return
	}
	if m.cluster.Connected() {
		if err := m.cluster.SendPresenceTo(target, p); err != nil {
			m.log.Debug("presence to player failed", "user", p.User, "target", target, "err", err)
		}
	}
}

// applyLocal updates the local sessions that list p.User (only that one
// when only != 0) and tells their world where each now sees p.User. An
// update that leaves that node as the world last heard sends nothing; it
// still counts as news, so a lookup in flight does not overwrite it.
func (m *Manager) applyLocal(p cluster.Presence, only uint64) {
	owners := m.owners(p.User)
	for _, o := range owners {
		if only != 0 && o != only {
			continue
		}
		s := m.get(o)
		if s == nil {
			continue
		}
		node := p.VisibleNode(o)
		s.mu.Lock()
		if j := s.findLocked(p.User); j >= 0 {
			f := &s.friends[j]
			f.gen++
			if f.node != node {
				f.node = node
				m.send(proto.UpdateFriendList{Target37: o, Friend37: p.User, Node: node})
			}
		}
		s.mu.Unlock()
	}
}

// ApplyPresence takes presence from another node. A player with a session
// here is ours to announce: a late word about it from elsewhere is stale.
func (m *Manager) ApplyPresence(ps []cluster.Presence, only uint64) {
	for _, p := range ps {
		if m.get(p.User) != nil {
			continue
		}
		m.applyLocal(p, only)
	}
}

// PresenceFor answers another node's lookup.
func (m *Manager) PresenceFor(user, asker uint64) (uint8, bool) {
	s := m.readySession(user)
	if s == nil {
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.visibleLocked(m.cfg.NodeID, asker), true
}

// HasSession answers another node's login check.
func (m *Manager) HasSession(user uint64) bool { return m.get(user) != nil }

// refreshAll makes every session refresh its friends and rebroadcast its
// own presence (the world sends it after a reconnect, once it resynced its
// players). Sessions of a lost link that were not resynced are left to
// end after the link grace.
func (m *Manager) refreshAll() {
	for _, s := range m.all() {
		s.mu.Lock()
		orphaned := !s.orphaned.IsZero()
		s.mu.Unlock()
		if orphaned {
			continue
		}
		m.doFor(s, func() {
			m.sendFriends(s)
			m.announce(s)
		})
	}
}

// NodeDown: the friends last seen on that node are offline now.
func (m *Manager) NodeDown(node uint8) {
	for _, s := range m.all() {
		s.mu.Lock()
		for i := range s.friends {
			if f := &s.friends[i]; f.node == node {
				f.node = 0
				f.gen++
				m.send(proto.UpdateFriendList{Target37: s.user, Friend37: f.id, Node: 0})
			}
		}
		s.mu.Unlock()
	}
}

// NodeUp: friends shown offline may be on that node, and its sessions do
// not know ours: refresh the former, send the latter our presences.
func (m *Manager) NodeUp(node uint8) {
	for _, s := range m.all() {
		m.doFor(s, func() {
			m.refreshOffline(s)
			s.mu.Lock()
			p := s.presenceLocked(m.cfg.NodeID)
			ready := s.ready
			s.mu.Unlock()
			if ready && m.cluster.Connected() {
				_ = m.cluster.SendPresences(node, []cluster.Presence{p})
			}
		})
	}
}

// Reload re-reads every session's lists from the database and re-sends
// them, after a database outage.
func (m *Manager) Reload() {
	for _, s := range m.all() {
		m.doFor(s, func() { m.reload(s) })
	}
}

func (m *Manager) reload(s *Session) {
	user := s.user
	ctx, cancel := m.opCtx()
	lists, err := m.store.Load(ctx, user)
	cancel()
	if err != nil {
		m.log.Warn("reload of lists failed; keeping those in memory", "user", user, "err", err)
		return
	}
	s.mu.Lock()
	old := s.setListsLocked(lists)
	m.reindex(user, old, s.friends)
	s.mu.Unlock()
	m.requestLists(user)
}
