package session

import (
	"errors"
	"time"

	"github.com/corrosion/corrosion/ether/cluster"
	"github.com/corrosion/corrosion/ether/privacy"
	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/ether/store"
)

// login starts (or restarts) user's session: lists from the database, the
// player subject joined, then the login lock released. mode, when given
// (a resync), overrides the stored private mode. gen is the world link the
// frame came from (adopt): if that link was lost meanwhile, the session
// is orphaned as if it had been linked when the link dropped. It sends
// nothing.
func (m *Manager) login(user uint64, pid uint16, mode *privacy.Mode, gen linkGen) *Session {
	m.mu.Lock()
	s := m.sessions[user]
	if s == nil {
		s = &Session{user: user}
		m.sessions[user] = s
	}
	held, ok := m.leases[user]
	delete(m.leases, user)
	m.mu.Unlock()
	release := ok && held.scope == scopeCluster

	ctx, cancel := m.opCtx()
	lists, err := m.store.Load(ctx, user)
	cancel()
	if err != nil {
		m.log.Warn("session starts without its lists; they follow when the database is back", "user", user, "err", err)
	}
	s.mu.Lock()
	s.pid = pid
	m.attachLocked(s, gen)
	if err == nil {
		old := s.setListsLocked(lists)
		m.reindex(user, old, s.friends)
	}
	if mode != nil && mode.Valid() && *mode != s.mode {
		s.mode = *mode
		m.store.SetMode(user, *mode)
	}
	s.mu.Unlock()

	if err := m.cluster.Join(user); err != nil {
		m.log.Error("player not reachable from other nodes", "user", user, "err", err)
	}
	s.mu.Lock()
	s.ready = true
	s.mu.Unlock()
	if release { // only a lock our LoginCheck took is ours to release
		m.releaseLock(user)
	}
	return s
}

// loginRelease gives back the login lock this node's LoginCheck took for
// user, when the world's login ended before its PlayerLogin (a wrong
// password, a hang-up, a shutdown: LoginRelease). Only a lock this node
// still holds, unexpired, and no session of user's: a lock another node
// took, or one that expired (and may be another node's now), is not ours.
func (m *Manager) loginRelease(user uint64) {
	if m.get(user) != nil {
		return // PlayerLogin used the lock already
	}
	m.mu.Lock()
	held, ok := m.leases[user]
	delete(m.leases, user)
	m.mu.Unlock()
	if ok && held.scope == scopeCluster && time.Now().Before(held.until) {
		m.releaseLock(user)
	}
}

// releaseLock deletes user's cluster-wide login lock, which this node
// holds; when that fails the lock expires on its own.
func (m *Manager) releaseLock(user uint64) {
	if !m.cluster.Connected() {
		return
	}
	ctx, cancel := m.opCtx()
	defer cancel()
	if err := m.cluster.Release(ctx, user); err != nil {
		m.log.Debug("login lock not released; it expires on its own", "user", user, "err", err)
	}
}

// attachLocked ties s to the world link of generation gen: linked while
// that link is the current one, else orphaned since it was lost (unless
// already orphaned earlier). WorldDown bumps the generation before it
// orphans the sessions, so whichever runs first, s ends up orphaned.
func (m *Manager) attachLocked(s *Session, gen linkGen) {
	m.mu.RLock()
	cur, lost := m.linkGen, m.linkLost
	m.mu.RUnlock()
	switch {
	case gen == cur:
		s.orphaned = time.Time{}
	case s.orphaned.IsZero():
		s.orphaned = lost
	}
}

// setListsLocked replaces s's lists with what the database holds, keeping
// what the world was told about friends still listed. It returns the
// friend list it replaced, for the reverse index (Manager.reindex).
func (s *Session) setListsLocked(l store.Lists) (old []friend) {
	old = s.friends
	s.friends = make([]friend, 0, len(l.Friends))
	for _, id := range l.Friends {
		f := friend{id: id}
		for _, o := range old {
			if o.id == id {
				f = o
				break
			}
		}
		s.friends = append(s.friends, f)
	}
	s.ignores = l.Ignores
	s.mode = l.Mode
	s.loaded = true
	return old
}

// logout ends user's session and tells the players who list it.
func (m *Manager) logout(user uint64) {
	m.mu.Lock()
	s := m.sessions[user]
	delete(m.sessions, user)
	m.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	s.ready = false
	m.reindex(user, s.friends, nil)
	s.mu.Unlock()

	m.cluster.Leave(user)
	m.announcePresence(cluster.Presence{User: user, Node: 0})
}

// resync recreates user's session after the world reconnected, with the
// world's private mode, and re-sends its lists.
func (m *Manager) resync(user uint64, pid uint16, mode privacy.Mode, gen linkGen) {
	m.login(user, pid, &mode, gen)
	m.requestLists(user)
}

// loginCheck answers whether user may log in: not while a session exists
// anywhere in the cluster, and only with the cluster-wide login lock.
func (m *Manager) loginCheck(user uint64) {
	allowed := m.checkLogin(user)
	if allowed {
		m.stats.loginAllowed.Add(1)
	} else {
		m.stats.loginDenied.Add(1)
	}
	m.send(proto.LoginCheckResponse{User37: user, Allowed: allowed})
}

func (m *Manager) checkLogin(user uint64) bool {
	// A lock this node holds means a login it allowed is still pending:
	// cluster-wide, or node-local from a NATS outage, which the bucket
	// never heard of and would grant again.
	if m.get(user) != nil || m.holding(user) {
		return false
	}
	if !m.cluster.Connected() {
		m.hold(user, scopeLocal) // node-local, like the seed's :global inside a partition
		return true
	}
	ctx, cancel := m.opCtx()
	defer cancel()
	ok, err := m.cluster.Acquire(ctx, user)
	if err != nil {
		m.log.Warn("login check: cannot take the login lock; denying", "user", user, "err", err)
		return false
	}
	if !ok {
		return false
	}
	// The lock is ours; a session that already runs somewhere (sessions
	// release their lock when they start) must still deny. Asking after
	// taking the lock leaves no gap for a session to start unseen.
	if online, err := m.cluster.Online(ctx, user); err != nil || online {
		if err != nil {
			m.log.Warn("login check: cannot ask the cluster; denying", "user", user, "err", err)
		}
		if err := m.cluster.Release(ctx, user); err != nil {
			m.log.Debug("login lock not released; it expires on its own", "user", user, "err", err)
		}
		return false
	}
	m.hold(user, scopeCluster)
	return true
}

// hold records a login lock this node took.
func (m *Manager) hold(user uint64, sc scope) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	for u, l := range m.leases {
		if !now.Before(l.until) {
			delete(m.leases, u)
		}
	}
	m.leases[user] = lease{until: now.Add(m.cfg.LeaseTTL), scope: sc}
}

// holding reports whether this node holds an unexpired login lock on user.
func (m *Manager) holding(user uint64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.leases[user]
	return ok && time.Now().Before(l.until)
}

// save stores a save blob and acknowledges it: success means it is in the
// database; while the database is down the blob stays queued (and is what
// a load returns) and the ack says false.
func (m *Manager) save(user uint64, data []byte) {
	m.store.Save(user, data, func(ok bool) {
		m.send(proto.PlayerSaveAck{User37: user, Success: ok})
	})
}

// loadSave answers a load with the stored blob (empty when none). On a
// database error it sends nothing rather than an empty blob, which the
// world would take for a new player.
func (m *Manager) loadSave(user uint64) {
	ctx, cancel := m.opCtx()
	defer cancel()
	data, err := m.store.LoadSave(ctx, user)
	if err != nil {
		lvl := "error"
		if errors.Is(err, store.ErrUnavailable) {
			lvl = "unavailable"
		}
		m.log.Error("player load not answered", "user", user, "cause", lvl, "err", err)
		return
	}
	m.send(proto.PlayerLoadResponse{User37: user, SaveData: data})
}
