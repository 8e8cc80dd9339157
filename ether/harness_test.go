package ether_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/ether"
	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const wait = 10 * time.Second // generous deadline for anything that should happen soon

// testCluster is N ether nodes in this process sharing one NATS server
// and one (migrated) database.
type testCluster struct {
	t     testing.TB
	nats  *natstest.Server
	dsn   string
	base  ether.Config // fast timings; node id and port set per node
	quiet bool         // log warnings only (benchmarks)
	mu    sync.Mutex
	nodes map[uint8]*testNode // guarded by mu
}

type testNode struct {
	cfg     ether.Config
	node    *ether.Node
	cancel  context.CancelFunc
	done    chan error
	once    sync.Once
	stopped atomic.Bool
}

// newTestCluster starts NATS, creates and migrates a database (dsn may
// name one of a test's own Postgres cluster; empty: a fresh shared one).
func newTestCluster(t testing.TB, dsn string) *testCluster {
	t.Helper()
	if dsn == "" {
		dsn = pgtest.NewDatabase(t)
	}
	c := &testCluster{t: t, nats: natstest.Start(t), dsn: dsn, nodes: map[uint8]*testNode{}}
	c.base = configFor(t, dsn, c.nats.URL())
	if err := ether.Migrate(context.Background(), c.base, testLogger(t, "migrate")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.stopAll)
	return c
}

// configFor turns a database URL into the RS_DB_* fields and sets timings
// short enough for tests.
func configFor(t testing.TB, dsn, natsURL string) ether.Config {
	t.Helper()
	db, err := flagval.ParseDB(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg := ether.DefaultConfig()
	cfg.DB = db
	cfg.ClusterHosts = []string{natsURL}
	cfg.ClusterName = "t"
	cfg.LeaseTTL = time.Second
	// Short, but with room for a loaded machine running -race: a false
	// "node down" would add frames that exact-sequence tests do not expect.
	cfg.Heartbeat = 200 * time.Millisecond
	cfg.NodeTimeout = 2 * time.Second
	cfg.HealthEvery = 200 * time.Millisecond
	cfg.LinkGrace = 2 * time.Second
	return cfg
}

func testLogger(t testing.TB, name string) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})).With("who", name)
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// start runs node id (on a free port the first time, the same port after).
func (c *testCluster) start(id uint8, tweak ...func(*ether.Config)) *testNode {
	c.t.Helper()
	c.mu.Lock()
	prev := c.nodes[id]
	c.mu.Unlock()
	cfg := c.base
	cfg.NodeID = id
	cfg.EtherPort = natstest.FreePort(c.t)
	if prev != nil {
		cfg = prev.cfg
	}
	for _, f := range tweak {
		f(&cfg)
	}
	log := testLogger(c.t, "node"+strconv.Itoa(int(id)))
	if c.quiet {
		log = slog.New(slog.NewTextHandler(tWriter{c.t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	n, err := ether.New(context.Background(), cfg, log.With("node", id))
	if err != nil {
		c.t.Fatalf("start node %d: %v", id, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tn := &testNode{cfg: cfg, node: n, cancel: cancel, done: make(chan error, 1)}
	go func() { tn.done <- n.Run(ctx) }()
	c.mu.Lock()
	c.nodes[id] = tn
	c.mu.Unlock()
	c.settle()
	return tn
}

// settle waits until every running node sees every other one of its
// cluster, so that
// the peer-up events of a start (which refresh and rebroadcast presence)
// are over before a test looks at frames.
func (c *testCluster) settle() {
	c.t.Helper()
	poll.Until(c.t, wait, func() error {
		c.mu.Lock()
		defer c.mu.Unlock()
		var ids []uint8
		for id, n := range c.nodes {
			if !n.stopped.Load() {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		for _, id := range ids {
			name := c.nodes[id].cfg.ClusterName
			want := slices.DeleteFunc(slices.Clone(ids), func(x uint8) bool { return x == id || c.nodes[x].cfg.ClusterName != name })
			if got := c.nodes[id].node.Health().Peers; !slices.EqualFunc(got, want, func(g int, w uint8) bool { return g == int(w) }) {
				return notYet("node %d sees %v, want %v", id, got, want)
			}
		}
		return nil
	})
}

// stop shuts the node down gracefully (goodbye to peers, writes flushed).
func (tn *testNode) stop(t testing.TB) {
	tn.stopped.Store(true)
	tn.once.Do(func() {
		tn.cancel()
		select {
		case err := <-tn.done:
			if err != nil {
				t.Errorf("node %d Run: %v", tn.cfg.NodeID, err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("node %d did not stop", tn.cfg.NodeID)
		}
	})
}

// crash kills the node without a goodbye: peers must notice it from its
// missing heartbeats.
func (tn *testNode) crash(t testing.TB) {
	tn.node.Crash()
	tn.stop(t)
}

func (c *testCluster) stopAll() {
	c.mu.Lock()
	nodes := make([]*testNode, 0, len(c.nodes))
	for _, n := range c.nodes {
		nodes = append(nodes, n)
	}
	c.mu.Unlock()
	for _, n := range nodes {
		n.stop(c.t)
	}
}

// exec runs SQL against the cluster's database.
func (c *testCluster) exec(sql string, args ...any) {
	c.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.dsn)
	if err != nil {
		c.t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		c.t.Fatalf("%s: %v", sql, err)
	}
}

// count runs a counting query.
func (c *testCluster) count(sql string, args ...any) int {
	c.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.dsn)
	if err != nil {
		c.t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		c.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// friends stores owner's friend list, in order.
func (c *testCluster) friends(owner uint64, fs ...uint64) {
	c.t.Helper()
	for i, f := range fs {
		c.exec("INSERT INTO friends (owner_hash, friend_hash, created_at) VALUES ($1, $2, now() + $3 * interval '1 ms')", int64(owner), int64(f), i)
	}
}

// ignores stores owner's ignore list, in order.
func (c *testCluster) ignores(owner uint64, is ...uint64) {
	c.t.Helper()
	for i, f := range is {
		c.exec("INSERT INTO ignores (owner_hash, ignore_hash, created_at) VALUES ($1, $2, now() + $3 * interval '1 ms')", int64(owner), int64(f), i)
	}
}

// world is a test world server: it speaks frames to a node over TCP, as
// worldsrv does.
type world struct {
	t      testing.TB
	node   uint8
	conn   net.Conn
	frames chan proto.Message // decoded outbound frames, values (not pointers)
	closed chan struct{}
}

// connectWorld dials node's link and registers.
func connectWorld(t testing.TB, tn *testNode) *world {
	t.Helper()
	conn, err := net.Dial("tcp", tn.node.WorldAddr().String())
	if err != nil {
		t.Fatalf("dial node %d: %v", tn.cfg.NodeID, err)
	}
	w := &world{t: t, node: tn.cfg.NodeID, conn: conn, frames: make(chan proto.Message, 1<<16), closed: make(chan struct{})}
	go w.read()
	t.Cleanup(func() { conn.Close() })
	w.send(proto.WorldRegister{NodeID: tn.cfg.NodeID})
	return w
}

func (w *world) read() {
	defer close(w.closed)
	r := bufio.NewReader(w.conn)
	for {
		p, err := proto.ReadFrame(r, nil)
		if err != nil {
			return
		}
		m, err := proto.DecodeOutbound(p)
		if err != nil {
			w.t.Errorf("world %d: bad frame from ether: %v", w.node, err)
			return
		}
		w.frames <- reflect.ValueOf(m).Elem().Interface().(proto.Message)
	}
}

func (w *world) send(ms ...proto.Message) {
	w.t.Helper()
	for _, m := range ms {
		if err := proto.WriteFrame(w.conn, m); err != nil {
			w.t.Fatalf("world %d: send %s: %v", w.node, m.Op(), err)
		}
	}
}

// next returns the next frame from ether.
func (w *world) next() proto.Message {
	w.t.Helper()
	select {
	case m := <-w.frames:
		return m
	case <-time.After(wait):
		w.t.Fatalf("world %d: no frame from ether within %v", w.node, wait)
		return nil
	}
}

// expect checks that the next frames are exactly want, in order.
func (w *world) expect(want ...proto.Message) {
	w.t.Helper()
	for i, m := range want {
		got := w.next()
		if !reflect.DeepEqual(got, m) {
			w.t.Fatalf("world %d: frame %d = %#v, want %#v", w.node, i, got, m)
		}
	}
}

// waitFor skips frames until one equals want.
func (w *world) waitFor(want proto.Message) {
	w.t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case m := <-w.frames:
			if reflect.DeepEqual(m, want) {
				return
			}
		case <-deadline:
			w.t.Fatalf("world %d: no %#v within %v", w.node, want, wait)
		}
	}
}

// quiet checks that nothing is pending right now.
func (w *world) quiet() {
	w.t.Helper()
	select {
	case m := <-w.frames:
		w.t.Fatalf("world %d: unexpected frame %#v", w.node, m)
	default:
	}
}

// sync is a barrier for one player: every frame caused by what the world
// sent about user before it has arrived once the load response is here
// (a player's frames are worked on in order). It fails on any other
// frame in between.
func (w *world) sync(user uint64) {
	w.t.Helper()
	w.send(proto.PlayerLoadRequest{User37: user})
	m := w.next()
	if r, ok := m.(proto.PlayerLoadResponse); !ok || r.User37 != user {
		w.t.Fatalf("world %d: frame %#v before the sync of %d", w.node, m, user)
	}
}

// login runs the world's login flow: LoginCheck, then PlayerLogin and
// RequestLists when allowed. It returns the lists' frames up to
// FriendListComplete.
func (w *world) login(user uint64) []proto.Message {
	w.t.Helper()
	w.send(proto.LoginCheck{User37: user})
	if m := w.next(); !reflect.DeepEqual(m, proto.LoginCheckResponse{User37: user, Allowed: true}) {
		w.t.Fatalf("world %d: login check of %d: %#v", w.node, user, m)
	}
	w.send(proto.PlayerLogin{User37: user, PID: uint16(user)}, proto.RequestLists{User37: user})
	var got []proto.Message
	for {
		m := w.next()
		got = append(got, m)
		if m == (proto.FriendListComplete{Target37: user}) {
			return got
		}
	}
}

// disconnect closes the link and waits for the reader to end.
func (w *world) disconnect() {
	w.conn.Close()
	<-w.closed
}

// ufl is shorthand for an UpdateFriendList.
func ufl(target, friend uint64, node uint8) proto.UpdateFriendList {
	return proto.UpdateFriendList{Target37: target, Friend37: friend, Node: node}
}

var errNotYet = errors.New("not yet")

func notYet(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errNotYet, fmt.Sprintf(format, args...))
}

var _ = io.EOF
