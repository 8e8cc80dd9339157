package netserve

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/engine"
	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

func TestTCP_LoginSequence(t *testing.T) {
	w := newWorld(t, engine.Config{}, Options{})
	c := dialTCP(t, w.tcp)
	pos := login(t, "alice", c.send, c.next)
	if !testMap().Walkable(int(pos.X), int(pos.Y)) {
		t.Fatalf("spawned on an unwalkable tile %+v", pos)
	}
	c.send(proto.Logout{})
	for {
		m, err := c.next()
		if err != nil {
			t.Fatalf("after Logout: %v before LoggedOut", err)
		}
		if lo, ok := m.(*proto.LoggedOut); ok {
			if lo.Reason != proto.LogoutRequested {
				t.Fatalf("LoggedOut reason %v", lo.Reason)
			}
			break
		}
	}
	c.expectClosed()
}

func TestWebSocket_LoginSequence(t *testing.T) {
	w := newWorld(t, engine.Config{}, Options{})
	c := dialWS(t, w.wsURL+"/ws")
	login(t, "bob", c.send, c.next)
	c.send(proto.Walk{X: 0, Y: 0}) // still answered frame by frame, one per message
	if _, err := c.next(); err != nil {
		t.Fatal(err)
	}
}

func TestTCP_NonLoginFirstFrameCloses(t *testing.T) {
	w := newWorld(t, engine.Config{}, Options{})
	c := dialTCP(t, w.tcp)
	c.send(proto.Keepalive{})
	c.expectClosed()
	poll.True(t, wait, "engine counts the bad first frame", func() bool { return w.e.Stats().BadFrames == 1 })
}

func TestTCP_OversizedLengthCloses(t *testing.T) {
	w := newWorld(t, engine.Config{}, Options{})
	c := dialTCP(t, w.tcp)
	if _, err := c.nc.Write([]byte{0x10, 0x01, 1}); err != nil { // 4097 bytes announced
		t.Fatal(err)
	}
	c.expectClosed()
	if got := w.srv.Stats().BadFrames; got != 1 {
		t.Fatalf("BadFrames = %d, want 1", got)
	}
}

func TestTCP_MalformedPayloadCloses(t *testing.T) {
	w := newWorld(t, engine.Config{}, Options{})
	c := dialTCP(t, w.tcp)
	if _, err := c.nc.Write([]byte{0, 1, 200}); err != nil { // unknown opcode
		t.Fatal(err)
	}
	c.expectClosed()
	if got := w.srv.Stats().BadFrames; got != 1 {
		t.Fatalf("BadFrames = %d, want 1", got)
	}
}

func TestWebSocket_BadMessagesClose(t *testing.T) {
	w := newWorld(t, engine.Config{}, Options{})
	for i, msg := range [][]byte{{0x10, 0x01, 1}, {0, 5, 1}, {0, 1, 1, 9}} {
		c := dialWS(t, w.wsURL+"/ws")
		c.sendRaw(msg)
		if _, err := c.next(); err == nil {
			t.Fatalf("message %d: connection still open", i)
		}
		poll.True(t, wait, fmt.Sprintf("bad message %d counted", i), func() bool { return w.srv.Stats().BadFrames == uint64(i+1) })
	}
}

func TestTCP_PerAddressCapAnswers9(t *testing.T) {
	w := newWorld(t, engine.Config{MaxPerAddress: 2}, Options{})
	a, b := dialTCP(t, w.tcp), dialTCP(t, w.tcp)
	login(t, "carol", a.send, a.next)
	login(t, "dave", b.send, b.next)
	c := dialTCP(t, w.tcp)
	c.send(proto.Login{Username: "erin", Password: "secret"})
	m, err := c.next()
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := m.(*proto.LoginResponse); !ok || r.Code != proto.LoginTooManyConnections {
		t.Fatalf("third connection got %#v, want LoginResponse 9", m)
	}
	c.expectClosed()
}

func TestShutdown_StopsAcceptingAndLogsEveryoneOut(t *testing.T) {
	w := newWorld(t, engine.Config{}, Options{})
	c := dialTCP(t, w.tcp)
	login(t, "frank", c.send, c.next)
	w.srv.StopAccepting()
	if nc, err := net.DialTimeout("tcp", w.tcp, time.Second); err == nil {
		_ = nc.Close()
		t.Fatal("game port still accepts after StopAccepting")
	}
	w.cancel() // the engine logs everyone out
	for {
		m, err := c.next()
		if err != nil {
			t.Fatalf("%v before LoggedOut", err)
		}
		if lo, ok := m.(*proto.LoggedOut); ok && lo.Reason == proto.LogoutShutdown {
			break
		}
	}
	c.expectClosed()
}

// A client that never reads is disconnected while the others go on: ten
// bots walk around the spawn area (each gets Positions and Nearby lists
// every tick) beside a client with a tiny receive window that never reads.
func TestTCP_NonReaderDisconnectedWithoutStallingOthers(t *testing.T) {
	w := newWorld(t, engine.Config{TickInterval: 5 * time.Millisecond, IdleTimeout: time.Minute, MaxPerAddress: -1},
		Options{WriteTimeout: 300 * time.Millisecond, SendBuffer: 4096})
	stuck := dialSmallWindow(t, w.tcp)
	if err := proto.WriteFrame(stuck, proto.Login{Username: "stuck", Password: "secret"}); err != nil {
		t.Fatal(err)
	}
	spawns := testMap().Spawns()
	from, to := spawns[0], spawns[len(spawns)-1]
	stop := make(chan struct{})
	var wg sync.WaitGroup
	frames := make([]int, 10)
	for i := range frames {
		c := dialTCP(t, w.tcp)
		login(t, fmt.Sprintf("walker%d", i), c.send, c.next)
		wg.Add(2)
		go func() { defer wg.Done(); readAll(c, &frames[i], stop) }()
		go func() { defer wg.Done(); walk(c, from, to, stop) }()
	}
	defer func() { close(stop); wg.Wait() }()
	poll.True(t, wait, "the non-reader is disconnected", func() bool {
		st, es := w.srv.Stats(), w.e.Stats()
		return st.SlowWrites+es.SlowDisconnects > 0 && st.Open == 10
	})
	ticks := w.e.Stats().Ticks
	poll.True(t, wait, "the tick goes on", func() bool { return w.e.Stats().Ticks > ticks+20 })
	if es := w.e.Stats(); es.Overruns > es.Ticks/10 {
		t.Fatalf("%d of %d ticks overran", es.Overruns, es.Ticks)
	}
}

// readAll counts the frames c receives until stop.
func readAll(c *tcpClient, n *int, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		if _, err := c.next(); err != nil {
			return
		}
		*n++
	}
}

// walk sends c back and forth between two tiles until stop.
func walk(c *tcpClient, a, b terrain.Point, stop <-chan struct{}) {
	tick := time.NewTicker(15 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		p := a
		if i%2 == 1 {
			p = b
		}
		if proto.WriteFrame(c.nc, proto.Walk{X: p.X, Y: p.Y}) != nil {
			return
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// Accepting never waits for the tick: with the engine not ticking and its
// accept queue (1) full, the next connection is closed at once, counted.
func TestTCP_FullAcceptQueueCloses(t *testing.T) {
	e, err := engine.New(engine.Config{NodeID: 10, EtherOff: true, AcceptQueue: 1},
		engine.Deps{Map: testMap(), Accounts: testAccounts(t)})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.ServeTCP(ln) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Close(ctx) // the engine never ran: the admitted one is closed here
		<-served
	}()
	first := dialTCP(t, ln.Addr().String())
	poll.True(t, wait, "first connection attached", func() bool { return srv.Stats().Accepted == 1 })
	second := dialTCP(t, ln.Addr().String())
	second.expectClosed()
	poll.True(t, wait, "Busy 1 and the first still open", func() bool {
		st := srv.Stats()
		return st.Busy == 1 && st.Open == 1
	})
	_ = first
}
