package engine

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// wait is the deadline for anything crossing processes.
const wait = 45 * time.Second

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// memConn is an in-memory Conn: it stands in for the network layer.
type memConn struct {
	addr   string
	closed atomic.Bool
}

func (c *memConn) RemoteAddr() string { return c.addr }
func (c *memConn) Close() error       { c.closed.Store(true); return nil }

// testMap is the world every test plays on.
var testMap = sync.OnceValue(func() *terrain.Map { return terrain.Generate(42, terrain.Grassland, 128, 128) })

// world is an engine under test with a stepping clock: tick runs one
// tick 600 ms after the last.
type world struct {
	t   *testing.T
	e   *Engine
	now time.Time
}

func newWorld(t *testing.T, cfg Config, deps Deps) *world {
	t.Helper()
	if cfg.NodeID == 0 {
		cfg.NodeID = 10
	}
	if cfg.IdleTimeout == 0 {
		// Ticks here are as fast as the test polls, each 600 ms of the
		// world's time: a wait for another process must not idle anyone out.
		cfg.IdleTimeout = 24 * time.Hour
	}
	if deps.Map == nil {
		deps.Map = testMap()
	}
	if deps.Logger == nil {
		deps.Logger = testLogger(t)
	}
	e, err := New(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.stopAuth)
	return &world{t: t, e: e, now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
}

func (w *world) tick() {
	w.now = w.now.Add(w.e.cfg.TickInterval)
	w.e.Tick(w.now)
}

// tickUntil ticks until cond holds, within wait.
func (w *world) tickUntil(what string, cond func() bool) {
	w.t.Helper()
	poll.True(w.t, wait, what, func() bool { w.tick(); return cond() })
}

// client is one test client: its connection and every frame it received.
type client struct {
	w    *world
	c    *Client
	conn *memConn
	got  []proto.WorldMessage
}

func (w *world) connect(addr string) *client {
	w.t.Helper()
	conn := &memConn{addr: addr}
	c, err := w.e.Attach(conn)
	if err != nil {
		w.t.Fatal(err)
	}
	return &client{w: w, c: c, conn: conn}
}

func (c *client) deliver(m proto.ClientMessage) {
	c.w.t.Helper()
	if !c.c.Deliver(m) {
		c.w.t.Fatalf("Deliver %T: queue full", m)
	}
}

// read takes every chunk queued for the client and decodes its frames.
func (c *client) read() {
	c.w.t.Helper()
	for {
		select {
		case chunk := <-c.c.Outbound():
			r := bytes.NewReader(chunk)
			for {
				payload, err := proto.ReadFrame(r, nil)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					c.w.t.Fatalf("read frame: %v", err)
				}
				m, err := proto.DecodeWorld(payload)
				if err != nil {
					c.w.t.Fatalf("decode frame: %v", err)
				}
				c.got = append(c.got, m)
			}
		default:
			return
		}
	}
}

// take returns the frames received so far and forgets them.
func (c *client) take() []proto.WorldMessage {
	c.read()
	got := c.got
	c.got = nil
	return got
}

func (c *client) done() bool {
	select {
	case <-c.c.Done():
		return true
	default:
		return false
	}
}

// login sends Login and ticks until the LoginResponse arrives; it returns
// every frame received so far, which stay in c.got for awaitFrame (ether
// may answer RequestLists within the same tick).
func (w *world) login(addr, name, password string) (*client, []proto.WorldMessage) {
	w.t.Helper()
	c := w.connect(addr)
	c.deliver(&proto.Login{Username: name, Password: password})
	w.tickUntil("a LoginResponse for "+name, func() bool {
		c.read()
		for _, m := range c.got {
			if _, ok := m.(*proto.LoginResponse); ok {
				return true
			}
		}
		return false
	})
	return c, slices.Clone(c.got)
}

// code is the LoginResponse's code among msgs.
func code(t *testing.T, msgs []proto.WorldMessage) proto.LoginCode {
	t.Helper()
	for _, m := range msgs {
		if r, ok := m.(*proto.LoginResponse); ok {
			return r.Code
		}
	}
	t.Fatalf("no LoginResponse in %v", msgs)
	return 0
}

// find returns the first message of type T among msgs.
func find[T proto.WorldMessage](msgs []proto.WorldMessage) (T, bool) {
	for _, m := range msgs {
		if v, ok := m.(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}
