package session

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/ether/cluster"
	"github.com/corrosion/corrosion/ether/privacy"
	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/ether/store"
)

// Limits on a player's lists. Adding beyond them is a silent no-op.
const (
	MaxFriends = 200
	MaxIgnores = 100
)

// World is the link to this node's world server.
type World interface {
	// Send queues a frame; false means it was dropped (no world connected).
	Send(m proto.Message) bool
}

// Store is what sessions need from the database.
type Store interface {
	Load(ctx context.Context, user uint64) (store.Lists, error)
	LoadSave(ctx context.Context, user uint64) ([]byte, error)
	AddFriend(owner, friend uint64, limit int)
	DelFriend(owner, friend uint64)
	AddIgnore(owner, ignore uint64, limit int)
	DelIgnore(owner, ignore uint64)
	SetMode(user uint64, mode privacy.Mode)
	Save(user uint64, data []byte, done func(ok bool))
}

// Cluster is what sessions need from the other nodes.
type Cluster interface {
	Join(user uint64) error
	Leave(user uint64)
	Lookup(ctx context.Context, asker uint64, users []uint64, out []uint8) error
	Online(ctx context.Context, user uint64) (bool, error)
	SendPM(ctx context.Context, target uint64, pm cluster.PM) (cluster.PMResult, error)
	Acquire(ctx context.Context, user uint64) (bool, error)
	Release(ctx context.Context, user uint64) error
	Broadcast(ps ...cluster.Presence) error
	SendPresences(node uint8, ps []cluster.Presence) error
	SendPresenceTo(target uint64, p cluster.Presence) error
	Connected() bool
}

var (
	_ Store   = (*store.Store)(nil)
	_ Cluster = (*cluster.Member)(nil)
)

// Config configures a Manager.
type Config struct {
	NodeID    uint8         // this world's node id, reported to friends
	LinkGrace time.Duration // sessions of a lost world link end after this unless resynced; default 10s
	LeaseTTL  time.Duration // local login lock lifetime while NATS is down; default 10s
	OpTimeout time.Duration // database and cluster calls; default 5s
	MaxQueued int           // frames waiting to be worked on; default 200,000
}

// Manager owns this node's sessions. It is the cluster's Handler and
// takes the world's frames through Handle. Frames for one player are
// worked on in order, one at a time; different players concurrently.
// The life cycle of a session and the lock order are in the package doc.
type Manager struct {
	cfg     Config       // immutable after New
	log     *slog.Logger // immutable after New
	world   World        // immutable after New; safe for concurrent use
	store   Store        // immutable after New; safe for concurrent use
	cluster Cluster      // immutable after New; safe for concurrent use

	exec  serial             // guarded by its own mu; the per-player queues
	ctx   context.Context    // immutable after New; ends when Run returns
	stop  context.CancelFunc // immutable after New; called by Run
	msgID atomic.Uint32      // atomic; the last msg_id handed out

	mu       sync.RWMutex
	sessions map[uint64]*Session // guarded by mu
	reverse  map[uint64][]uint64 // guarded by mu; friend → local players listing it
	leases   map[uint64]lease    // guarded by mu; login locks this node took
	linkGen  linkGen             // guarded by mu; bumped by every WorldDown
	linkLost time.Time           // guarded by mu; when the world link was last lost

	stats counters // atomics
}

// linkGen counts world links: a frame is from the link of the generation
// current when it was handled, and a login compares it after its database
// load to learn whether that link was lost meanwhile.
type linkGen uint64

// lease is a login lock taken by this node's LoginCheck, until the player's
// session starts or the lock expires.
type lease struct {
	until time.Time // a value in Manager.leases: guarded by Manager.mu
	scope scope     // which lock it is
}

// scope is which login lock a LoginCheck took.
type scope uint8

const (
	scopeCluster scope = iota // the cluster-wide lock in the NATS key-value bucket
	scopeLocal                // node-local: NATS was unreachable
)

// Session is one online player on this node.
type Session struct {
	user uint64 // immutable after creation

	mu       sync.Mutex
	pid      uint16       // guarded by mu
	mode     privacy.Mode // guarded by mu; private chat mode
	friends  []friend     // guarded by mu; in list order
	ignores  []uint64     // guarded by mu
	loaded   bool         // guarded by mu; lists came from the database
	ready    bool         // guarded by mu; joined the cluster, answers queries
	orphaned time.Time    // guarded by mu; when its world link was lost (zero: linked)
}

// friend is one entry of a friend list with what the world was last told.
type friend struct {
	id   uint64 // an element of Session.friends: guarded by Session.mu
	node uint8  // last node sent to the world; 0 offline or hidden
	gen  uint32 // bumped on every presence update, to spot stale lookups
}

// New returns a Manager; call Run to start it.
func New(cfg Config, world World, st Store, cl Cluster, log *slog.Logger) *Manager {
	if cfg.LinkGrace <= 0 {
		cfg.LinkGrace = 10 * time.Second
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = 10 * time.Second
	}
	if cfg.OpTimeout <= 0 {
		cfg.OpTimeout = 5 * time.Second
	}
	if cfg.MaxQueued <= 0 {
		cfg.MaxQueued = 200_000
	}
	m := &Manager{
		cfg: cfg, log: log, world: world, store: st, cluster: cl,
		sessions: map[uint64]*Session{}, reverse: map[uint64][]uint64{}, leases: map[uint64]lease{},
	}
	m.ctx, m.stop = context.WithCancel(context.Background())
	m.exec.init(cfg.MaxQueued)
	m.msgID.Store(rand.Uint32N(1 << 30)) // fresh ids across restarts: clients drop repeated ids
	return m
}

// Run ends orphaned sessions until ctx ends, then waits for queued work.
func (m *Manager) Run(ctx context.Context) error {
	t := time.NewTicker(min(m.cfg.LinkGrace/4, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			m.exec.Wait()
			m.stop()
			return nil
		case now := <-t.C:
			m.endOrphans(now)
		}
	}
}

// Count is the number of sessions on this node.
func (m *Manager) Count() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.sessions)
}

func (m *Manager) get(user uint64) *Session {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.sessions[user]
}

// readySession is the session of user if it answers queries.
func (m *Manager) readySession(user uint64) *Session {
	s := m.get(user)
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ready {
		return nil
	}
	return s
}

func (m *Manager) all() []*Session {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, s)
	}
	return out
}

// owners lists the local players whose friend list holds user.
func (m *Manager) owners(user uint64) []uint64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Clone(m.reverse[user])
}

// indexAddLocked records that owner lists friend.
func (m *Manager) indexAddLocked(owner, friend uint64) {
	if os := m.reverse[friend]; !slices.Contains(os, owner) {
		m.reverse[friend] = append(os, owner)
	}
}

// indexRemoveLocked records that owner no longer lists friend.
func (m *Manager) indexRemoveLocked(owner, friend uint64) {
	os := m.reverse[friend]
	i := slices.Index(os, owner)
	switch {
	case i < 0:
	case len(os) == 1:
		delete(m.reverse, friend)
	default:
		m.reverse[friend] = slices.Delete(os, i, i+1)
	}
}

// indexAdd records that owner lists friend; callers hold owner's
// Session.mu, as for reindex.
func (m *Manager) indexAdd(owner, friend uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.indexAddLocked(owner, friend)
}

// indexRemove records that owner no longer lists friend; callers hold
// owner's Session.mu, as for reindex.
func (m *Manager) indexRemove(owner, friend uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.indexRemoveLocked(owner, friend)
}

// reindex moves owner's entries in the reverse index from the friends of
// old to those of now. Callers hold owner's Session.mu (lock order: package
// doc), so that the index changes with the list.
func (m *Manager) reindex(owner uint64, old, now []friend) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, f := range old {
		m.indexRemoveLocked(owner, f.id)
	}
	for _, f := range now {
		m.indexAddLocked(owner, f.id)
	}
}

// nextMsgID is a fresh positive msg_id.
func (m *Manager) nextMsgID() int32 {
	for {
		if id := int32(m.msgID.Add(1) & 0x7fffffff); id > 0 {
			return id
		}
	}
}

func (m *Manager) send(msg proto.Message) { m.world.Send(msg) }

// opCtx bounds one database or cluster call.
func (m *Manager) opCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(m.ctx, m.cfg.OpTimeout)
}

// findLocked returns the index of id in s.friends, or -1.
func (s *Session) findLocked(id uint64) int {
	for i := range s.friends {
		if s.friends[i].id == id {
			return i
		}
	}
	return -1
}

// presenceLocked is what s announces: it is on node, visible by mode (in
// Friends mode the receivers need the friend list to decide).
func (s *Session) presenceLocked(node uint8) cluster.Presence {
	p := cluster.Presence{User: s.user, Node: node, Mode: s.mode}
	if s.mode == privacy.Friends {
		p.Friends = make([]uint64, len(s.friends))
		for i, f := range s.friends {
			p.Friends[i] = f.id
		}
	}
	return p
}

// visibleLocked is the node at which asker sees s (0: hidden).
func (s *Session) visibleLocked(node uint8, asker uint64) uint8 {
	if !s.visibleToLocked(asker) {
		return 0
	}
	return node
}

// visibleToLocked reports whether s's private mode lets other see s and send
// it private messages (privacy.Mode.Visible).
func (s *Session) visibleToLocked(other uint64) bool {
	return s.mode.Visible(func() bool { return s.findLocked(other) >= 0 })
}
