// Package cluster joins an ether node to its peers over NATS: one subject
// per online player for presence queries and private messages (no
// responders = offline), presence broadcasts, a JetStream key-value lease
// for the cluster-wide login lock, and heartbeats for node liveness. Every
// subject starts with the cluster name, so independent clusters can share a
// NATS server.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/ether/health"
	"github.com/corrosion/corrosion/internal/natsconn"
)

// Config configures a Member.
type Config struct {
	URLs           []string      // NATS server URLs
	Name           string        // cluster name: the subject prefix; default "ether"
	NodeID         uint8         // this node's world node id (1–255)
	LeaseTTL       time.Duration // login lock lifetime; default 10s
	Heartbeat      time.Duration // heartbeat period; default 1s
	NodeTimeout    time.Duration // a peer silent this long is down; default 3s
	RequestTimeout time.Duration // node-to-node requests; default 2s
	Workers        int           // goroutines answering player requests; default 4×GOMAXPROCS
	LockReplicas   int           // login-lock bucket replicas (1–5); 0: the NATS cluster's size up to 3
}

// ErrConfig: an invalid Config; the message names the field.
var ErrConfig = errors.New("cluster: invalid config")

// Validate checks c as it is once defaults are applied; c itself is not
// changed (New applies the defaults).
func (c Config) Validate() error {
	c.setDefaults()
	switch {
	case len(c.URLs) == 0:
		return fmt.Errorf("%w: no NATS URLs", ErrConfig)
	case !health.ClusterName.MatchString(c.Name):
		return fmt.Errorf("%w: cluster name %q must be 1-64 of [A-Za-z0-9_-]", ErrConfig, c.Name)
	case c.NodeID == 0:
		return fmt.Errorf("%w: node id must be 1-255", ErrConfig)
	case c.NodeTimeout <= c.Heartbeat:
		return fmt.Errorf("%w: node timeout %v must exceed the heartbeat %v", ErrConfig, c.NodeTimeout, c.Heartbeat)
	case c.LockReplicas < 0 || c.LockReplicas > 5:
		return fmt.Errorf("%w: login lock replicas %d must be 1-5 (0: automatic)", ErrConfig, c.LockReplicas)
	}
	return nil
}

func (c *Config) setDefaults() {
	if c.Name == "" {
		c.Name = "ether"
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = 10 * time.Second
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = time.Second
	}
	if c.NodeTimeout <= 0 {
		c.NodeTimeout = 3 * time.Second
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = 2 * time.Second
	}
	if c.Workers <= 0 {
		c.Workers = 4 * runtime.GOMAXPROCS(0)
	}
}

// Handler is what the cluster needs from the node's sessions. Calls come
// from several goroutines; none may block for long.
type Handler interface {
	// PresenceFor is the node at which asker sees user (0 when hidden);
	// ok is false when user has no ready session on this node.
	PresenceFor(user, asker uint64) (node uint8, ok bool)
	// HasSession reports whether user has a session on this node, ready
	// or still starting.
	HasSession(user uint64) bool
	// DeliverPM hands a private message to target's session.
	DeliverPM(target uint64, pm PM) PMResult
	// ApplyPresence updates the local sessions that list each player; with
	// only != 0, just that session.
	ApplyPresence(ps []Presence, only uint64)
	// NodeDown and NodeUp report peer liveness changes, in order.
	NodeDown(node uint8)
	NodeUp(node uint8)
}

// Subjects under one cluster name.
type subjects struct{ prefix string }

func (s subjects) player(user uint64) string {
	return s.prefix + ".player." + strconv.FormatUint(user, 10)
}
func (s subjects) presence() string { return s.prefix + ".presence" }
func (s subjects) nodePresence(node uint8) string {
	return s.prefix + ".node." + itoa(node) + ".presence"
}
func (s subjects) heartbeat(node uint8) string {
	return s.prefix + ".node." + itoa(node) + ".heartbeat"
}
func (s subjects) goodbye(node uint8) string { return s.prefix + ".node." + itoa(node) + ".down" }
func (s subjects) leaseBucket() string       { return s.prefix + "_login" }
func itoa(n uint8) string                    { return strconv.Itoa(int(n)) }
func (s subjects) userOf(subject string) (uint64, bool) {
	rest, ok := strings.CutPrefix(subject, s.prefix+".player.")
	if !ok {
		return 0, false
	}
	u, err := strconv.ParseUint(rest, 10, 64)
	return u, err == nil
}

// Member is this node's membership in the cluster. Teardown (Run's
// context ending): say goodbye, stop heartbeats, drain the connection.
type Member struct {
	cfg      Config       // immutable after New
	subj     subjects     // immutable after New
	log      *slog.Logger // immutable after New
	h        Handler      // set by Start, before any subscription delivers; read-only after
	nc       *nats.Conn   // immutable after New; safe for concurrent use
	instance string       // immutable after New; tells a restarted peer from the old one
	started  time.Time    // immutable after New

	in    chan *nats.Msg // immutable after New; player-subject requests for the workers
	inbox string         // set by Start, before any request; read-only after; reply subject prefix
	mux   mux            // guarded by its own mu; our outstanding requests

	mu   sync.Mutex
	subs map[uint64]*nats.Subscription // guarded by mu; one per joined player

	live  liveness // guarded by its own mu; peers
	lease lease    // guarded by its own locks; the login lock (lease.go)

	closed atomic.Bool // Close was called: no goodbye, no drain
	// stop ends the connection's context: from then on its closing is
	// expected and not logged (natsconn.Dial); immutable after New.
	stop context.CancelFunc
}

// New connects to NATS (retrying in the background when no server is up
// yet). Call Start next, then Run.
func New(cfg Config, log *slog.Logger) (*Member, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Member{
		cfg: cfg, subj: subjects{prefix: cfg.Name}, log: log,
		instance: nats.NewInbox()[len(nats.InboxPrefix):], started: time.Now(),
		in: make(chan *nats.Msg, 1<<16), subs: map[uint64]*nats.Subscription{},
	}
	m.live.init(m)
	m.lease.init(m)
	ctx, cancel := context.WithCancel(context.Background())
	m.stop = cancel
	nc, err := natsconn.Dial(ctx, natsconn.Options{
		URL:  strings.Join(cfg.URLs, ","),
		Name: fmt.Sprintf("ether-%s-%d", cfg.Name, cfg.NodeID),
		Log:  log,
		// A member rejoins at once: peers time it out after NodeTimeout.
		ReconnectDelay: func(int) time.Duration { return 250 * time.Millisecond },
		PingInterval:   5 * time.Second,
		OnConnect:      m.onConnect,
		Program:        "ether",
	})
	if err != nil {
		cancel()
		return nil, err
	}
	m.nc = nc
	return m, nil
}

// Start subscribes to the cluster's shared subjects, handing what arrives
// to h. Call it once, before Run and before any Join.
//
// When NATS is reachable, Start returns once the server has registered the
// subscriptions, so a presence broadcast sent after Start (by anyone)
// reaches this member. When it is not, they are registered on connect.
func (m *Member) Start(h Handler) error {
	m.h = h
	if err := m.subscribeShared(); err != nil {
		m.Close()
		return err
	}
	if m.nc.IsConnected() {
		if err := m.nc.FlushTimeout(5 * time.Second); err != nil {
			m.log.Warn("flush subscriptions", "err", err)
		}
	}
	return nil
}

func (m *Member) subscribeShared() error {
	m.inbox = nats.NewInbox()
	m.mux.init()
	subs := []struct {
		subj string
		cb   nats.MsgHandler
	}{
		{m.inbox + ".*", m.mux.onReply},
		{m.subj.presence(), m.onPresence},
		{m.subj.nodePresence(m.cfg.NodeID), m.onPresence},
		{m.subj.prefix + ".node.*.heartbeat", m.live.onHeartbeat},
		{m.subj.prefix + ".node.*.down", m.live.onGoodbye},
	}
	for _, s := range subs {
		sub, err := m.nc.Subscribe(s.subj, s.cb)
		if err != nil {
			return fmt.Errorf("subscribe %s: %w", s.subj, err)
		}
		_ = sub.SetPendingLimits(1<<20, 256<<20)
	}
	return nil
}

// Run answers requests, beats and watches peers until ctx ends.
func (m *Member) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for i := 0; i < m.cfg.Workers; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); m.work(ctx) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); m.live.run(ctx) }()
	wg.Add(1)
	go func() { defer wg.Done(); m.lease.run(ctx) }()
	<-ctx.Done()
	wg.Wait()
	m.shutdown()
	return nil
}

func (m *Member) shutdown() {
	if m.closed.Load() {
		return
	}
	m.stop()
	if m.nc.IsConnected() {
		_ = m.nc.Publish(m.subj.goodbye(m.cfg.NodeID), m.live.beat(true))
		_ = m.nc.FlushTimeout(time.Second)
	}
	done := make(chan struct{})
	m.nc.SetClosedHandler(func(*nats.Conn) { close(done) })
	if err := m.nc.Drain(); err != nil {
		m.nc.Close()
		return
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		m.nc.Close()
	}
}

// Close drops the NATS connection at once, without a goodbye: peers find
// out through missing heartbeats, as if the process had died.
func (m *Member) Close() {
	m.closed.Store(true)
	m.stop()
	m.nc.Close()
}

// Connected reports whether the NATS connection is up.
func (m *Member) Connected() bool { return m.nc.IsConnected() }

// RTT measures a round trip to the NATS server.
func (m *Member) RTT() (time.Duration, error) { return m.nc.RTT() }

// Instance is this member's unique id (changes on every start).
func (m *Member) Instance() string { return m.instance }

// Publish sends data on a subject under the cluster prefix (e.g.
// "health.10"), for node-level announcements such as health snapshots.
func (m *Member) Publish(suffix string, data []byte) error {
	return m.nc.Publish(m.subj.prefix+"."+suffix, data)
}

// PublishHealth publishes a health snapshot (ether/health) on this node's
// health subject.
func (m *Member) PublishHealth(data []byte) error {
	return m.nc.Publish(health.Subject(m.subj.prefix, int(m.cfg.NodeID)), data)
}

// onConnect re-announces every live peer after a reconnect: presence sent
// while the connection was down was lost. The first connect (at once, or
// later when no server was up at New) announces nothing: nothing was lost
// before it, and peers whose heartbeats arrived before this asynchronous
// callback would otherwise be reported up twice.
func (m *Member) onConnect(_ *nats.Conn, reconnect bool) {
	if reconnect {
		m.live.reconnected()
	}
}
