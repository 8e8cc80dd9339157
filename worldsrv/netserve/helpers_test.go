package netserve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/worldsrv/engine"
	"github.com/corrosion/corrosion/worldsrv/proto"
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// wait bounds anything a test waits for.
const wait = 30 * time.Second

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

var testMap = sync.OnceValue(func() *terrain.Map { return terrain.Generate(42, terrain.Grassland, 128, 128) })

// world is a real engine (ether off, real accounts) ticking fast, with a
// Server on a TCP listener and an httptest server for /ws.
type world struct {
	e      *engine.Engine
	srv    *Server
	tcp    string // game address
	wsURL  string
	cancel context.CancelFunc
}

func newWorld(t *testing.T, cfg engine.Config, opts Options) *world {
	t.Helper()
	log := slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfg.NodeID, cfg.EtherOff = 10, true
	if cfg.TickInterval == 0 {
		cfg.TickInterval = 20 * time.Millisecond
	}
	e, err := engine.New(cfg, engine.Deps{Logger: log, Map: testMap(), Accounts: testAccounts(t)})
	if err != nil {
		t.Fatal(err)
	}
	opts.Engine, opts.Logger = e, log
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); _ = e.Run(ctx) }()
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.ServeTCP(ln) }()
	hs := httptest.NewServer(srv.WebSocket())
	w := &world{e: e, srv: srv, tcp: ln.Addr().String(), wsURL: "ws" + strings.TrimPrefix(hs.URL, "http"), cancel: cancel}
	t.Cleanup(func() {
		srv.StopAccepting()
		cancel()
		<-ran
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		srv.Close(cctx)
		<-served
		hs.Close()
	})
	return w
}

// tcpClient is a game client over TCP.
type tcpClient struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func dialTCP(t *testing.T, addr string) *tcpClient {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return &tcpClient{t: t, nc: nc, r: bufio.NewReader(nc)}
}

// dialSmallWindow dials with a tiny receive buffer, so a client that does
// not read fills the path quickly.
func dialSmallWindow(t *testing.T, addr string) net.Conn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	if err := nc.(*net.TCPConn).SetReadBuffer(2048); err != nil {
		t.Fatal(err)
	}
	return nc
}

func (c *tcpClient) send(m proto.Message) {
	c.t.Helper()
	if err := proto.WriteFrame(c.nc, m); err != nil {
		c.t.Fatalf("send %T: %v", m, err)
	}
}

// next reads one message within wait.
func (c *tcpClient) next() (proto.WorldMessage, error) {
	_ = c.nc.SetReadDeadline(time.Now().Add(wait))
	p, err := proto.ReadFrame(c.r, nil)
	if err != nil {
		return nil, err
	}
	return proto.DecodeWorld(p)
}

// expectClosed reads until the server closes the connection.
func (c *tcpClient) expectClosed() {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(wait))
	if _, err := io.Copy(io.Discard, c.r); err != nil {
		c.t.Fatalf("want the server to close the connection, got %v", err)
	}
}

// login sends Login and reads up to the first Position, checking the
// login sequence.
func login(t *testing.T, name string, send func(proto.Message), next func() (proto.WorldMessage, error)) proto.Position {
	t.Helper()
	send(proto.Login{Username: name, Password: "secret"})
	m, err := next()
	if err != nil {
		t.Fatalf("login %s: %v", name, err)
	}
	if r, ok := m.(*proto.LoginResponse); !ok || r.Code != proto.LoginOK || r.Node != 10 {
		t.Fatalf("login %s: first frame %#v, want LoginResponse 2 on node 10", name, m)
	}
	var sawMap bool
	for {
		m, err := next()
		if err != nil {
			t.Fatalf("login %s: %v", name, err)
		}
		switch m := m.(type) {
		case *proto.MapInfo:
			if m.Seed != 42 || m.Width != 128 || m.Height != 128 {
				t.Fatalf("MapInfo %+v, want seed 42, 128x128", m)
			}
			sawMap = true
		case *proto.Position:
			if !sawMap {
				t.Fatal("Position before MapInfo")
			}
			return *m
		}
	}
}

// wsClient is a game client over WebSocket.
type wsClient struct {
	t *testing.T
	c *websocket.Conn
}

func dialWS(t *testing.T, url string) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	return &wsClient{t: t, c: c}
}

func (c *wsClient) sendRaw(msg []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.c.Write(ctx, websocket.MessageBinary, msg); err != nil {
		c.t.Fatal(err)
	}
}

func (c *wsClient) send(m proto.Message) {
	c.t.Helper()
	b, err := proto.AppendFrame(nil, m)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(b)
}

func (c *wsClient) next() (proto.WorldMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	typ, msg, err := c.c.Read(ctx)
	if err != nil {
		return nil, err
	}
	if typ != websocket.MessageBinary {
		return nil, errors.New("a text message")
	}
	p, err := proto.DecodeFrame(msg)
	if err != nil {
		return nil, err
	}
	return proto.DecodeWorld(p)
}
