package etherlink_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/worldsrv/etherlink"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const wait = 30 * time.Second // deadline for anything that should happen soon (a sidecar restart included)

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// fastBackoff redials quickly, for tests against a plain listener.
var fastBackoff = etherlink.Backoff{Min: 20 * time.Millisecond, Max: 100 * time.Millisecond, Stable: time.Minute}

// startClient runs a client for cfg until the test ends.
func startClient(t *testing.T, cfg etherlink.Config) *etherlink.Client {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	c := etherlink.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(wait):
			t.Errorf("Run did not return within %v of its context ending", wait)
		}
	})
	return c
}

// nextEvent drains one event, waiting up to the deadline.
func nextEvent(t *testing.T, c *etherlink.Client) etherlink.Event {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		var ev etherlink.Event
		if c.Drain(1, func(e etherlink.Event) { ev = e }) == 1 {
			return ev
		}
		if time.Now().After(deadline) {
			t.Fatalf("no event within %v (stats %+v)", wait, c.Stats())
		}
		time.Sleep(time.Millisecond)
	}
}

// expectKind drains the next event and checks its kind.
func expectKind(t *testing.T, c *etherlink.Client, k etherlink.Kind) etherlink.Event {
	t.Helper()
	ev := nextEvent(t, c)
	if ev.Kind != k {
		t.Fatalf("event %v (%#v, err %v), want %v", ev.Kind, ev.Msg, ev.Err, k)
	}
	return ev
}

// awaitMsg drains events until a message equal to want, failing on a
// Disconnected event on the way.
func awaitMsg(t *testing.T, c *etherlink.Client, want proto.Message) {
	t.Helper()
	for {
		ev := nextEvent(t, c)
		if ev.Kind == etherlink.Disconnected {
			t.Fatalf("disconnected (%v) while waiting for %#v", ev.Err, want)
		}
		if ev.Kind == etherlink.Message && reflect.DeepEqual(ev.Msg, want) {
			return
		}
	}
}

// peer is a plain listener standing in for the sidecar, where a test must
// force a condition (a peer that never reads, a bad frame, a hang-up).
type peer struct {
	t     *testing.T
	ln    net.Listener
	conns chan net.Conn
}

func newPeer(t *testing.T) *peer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &peer{t: t, ln: ln, conns: make(chan net.Conn, 16)}
	t.Cleanup(func() { ln.Close() })
	go p.acceptLoop(ln)
	return p
}

func (p *peer) acceptLoop(ln net.Listener) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		p.t.Cleanup(func() { nc.Close() })
		p.conns <- nc
	}
}

func (p *peer) addr() string { return p.ln.Addr().String() }

// reopen listens again on the same address after ln was closed.
func (p *peer) reopen() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.addr())
	if err != nil {
		p.t.Fatalf("listen again on %s: %v", p.addr(), err)
	}
	p.ln = ln
	p.t.Cleanup(func() { ln.Close() })
	go p.acceptLoop(ln)
}

// accept returns the client's next connection.
func (p *peer) accept() *side {
	p.t.Helper()
	select {
	case nc := <-p.conns:
		return &side{t: p.t, nc: nc, r: bufio.NewReader(nc)}
	case <-time.After(wait):
		p.t.Fatalf("the client did not connect within %v", wait)
		return nil
	}
}

// side is the peer's end of one connection.
type side struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

// next reads the next frame the client sent, as a value.
func (s *side) next() proto.Message {
	s.t.Helper()
	_ = s.nc.SetReadDeadline(time.Now().Add(wait))
	p, err := proto.ReadFrame(s.r, nil)
	if err != nil {
		s.t.Fatalf("read a frame from the client: %v", err)
	}
	m, err := proto.DecodeInbound(p)
	if err != nil {
		s.t.Fatalf("the client sent a bad frame: %v", err)
	}
	return reflect.ValueOf(m).Elem().Interface().(proto.Message)
}

// expect checks the next frames the client sent.
func (s *side) expect(want ...proto.Message) {
	s.t.Helper()
	for i, w := range want {
		if got := s.next(); !reflect.DeepEqual(got, w) {
			s.t.Fatalf("frame %d from the client = %#v, want %#v", i, got, w)
		}
	}
}

// prove answers the client's LinkChallenge with the proof for token.
func (s *side) prove(token []byte) {
	s.t.Helper()
	ch, ok := s.next().(proto.LinkChallenge)
	if !ok {
		s.t.Fatalf("the client's first frame is not a LinkChallenge")
	}
	s.send(proto.LinkProof{MAC: proto.ProveLink(token, ch.Nonce)})
}

// send writes frames to the client.
func (s *side) send(ms ...proto.Message) {
	s.t.Helper()
	var b []byte
	for _, m := range ms {
		var err error
		if b, err = proto.AppendFrame(b, m); err != nil {
			s.t.Fatal(err)
		}
	}
	s.raw(b)
}

// raw writes bytes to the client as they are.
func (s *side) raw(b []byte) {
	s.t.Helper()
	if _, err := s.nc.Write(b); err != nil && !errors.Is(err, net.ErrClosed) {
		s.t.Fatalf("write to the client: %v", err)
	}
}

// logLines records a logger's messages (and passes them to t.Log).
type logLines struct {
	mu    sync.Mutex
	lines []string // guarded by mu
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, string(p))
	return len(p), nil
}

// count is how many lines contain s.
func (l *logLines) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

func recordingLogger(t testing.TB) (*slog.Logger, *logLines) {
	l := &logLines{}
	w := io.MultiWriter(l, tWriter{t})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})), l
}
