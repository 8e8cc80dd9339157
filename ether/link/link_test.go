package link

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/poll"
)

// recorder is a Handler that keeps what it is given.
type recorder struct {
	mu     sync.Mutex
	frames []proto.Message // guarded by mu; copies
	events []string        // guarded by mu
}

func (r *recorder) HandleFrame(m proto.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch v := m.(type) {
	case *proto.PlayerLogin:
		r.frames = append(r.frames, *v)
	case *proto.PrivateMessage:
		c := *v
		c.Body = bytes.Clone(v.Body)
		r.frames = append(r.frames, c)
	default:
		r.frames = append(r.frames, m)
	}
}
func (r *recorder) WorldUp()   { r.event("up") }
func (r *recorder) WorldDown() { r.event("down") }
func (r *recorder) event(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, s)
}
func (r *recorder) get() ([]proto.Message, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.frames), slices.Clone(r.events)
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

func startServer(t *testing.T) (*Server, *recorder) {
	t.Helper()
	return startServerWith(t, Config{}, testLogger(t))
}

// startServerWith runs a Server with cfg on a free port of 127.0.0.1.
func startServerWith(t *testing.T, cfg Config, log *slog.Logger) (*Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	cfg.Addr = "127.0.0.1:0"
	s, err := New(cfg, rec, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return s, rec
}

func dial(t *testing.T, s *Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func readMsg(t *testing.T, r *bufio.Reader) proto.Message {
	t.Helper()
	p, err := proto.ReadFrame(r, nil)
	if err != nil {
		t.Fatalf("read frame: %v", err)
	}
	m, err := proto.DecodeOutbound(p)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return m
}

func TestServer_FramesBothWays(t *testing.T) {
	s, rec := startServer(t)
	if s.Send(proto.FriendListComplete{Target37: 1}) {
		t.Fatal("Send with no world connected reported success")
	}
	c := dial(t, s)
	poll.True(t, 5*time.Second, "link up", s.Up)
	if err := proto.WriteFrame(c, proto.PlayerLogin{User37: 7, PID: 3}); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 5*time.Second, "frame handled", func() bool { f, _ := rec.get(); return len(f) == 1 })
	if f, _ := rec.get(); f[0] != (proto.PlayerLogin{User37: 7, PID: 3}) {
		t.Fatalf("handled %#v", f[0])
	}
	if !s.Send(proto.LoginCheckResponse{User37: 7, Allowed: true}) {
		t.Fatal("Send failed with a world connected")
	}
	got := readMsg(t, bufio.NewReader(c))
	if v, ok := got.(*proto.LoginCheckResponse); !ok || *v != (proto.LoginCheckResponse{User37: 7, Allowed: true}) {
		t.Fatalf("world got %#v", got)
	}
}

func TestServer_BadFramesAreDroppedAndTheLinkStaysOpen(t *testing.T) {
	tests := []struct {
		name  string
		frame []byte // raw bytes, length prefix included
	}{
		{"empty frame", []byte{0, 0}},
		{"unknown opcode", []byte{0, 1, 99}},
		{"outbound opcode", []byte{0, 2, 131, 0}},
		{"fixed size too short", []byte{0, 3, byte(proto.OpPlayerLogin), 0, 1}},
		{"fixed size too long", append([]byte{0, 11, byte(proto.OpPlayerLogout)}, make([]byte, 10)...)},
		{"private message without its head", []byte{0, 2, byte(proto.OpPrivateMessage), 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, rec := startServer(t)
			c := dial(t, s)
			if _, err := c.Write(tt.frame); err != nil {
				t.Fatal(err)
			}
			if err := proto.WriteFrame(c, proto.PlayerLogin{User37: 1, PID: 1}); err != nil {
				t.Fatal(err)
			}
			poll.True(t, 5*time.Second, "the good frame after the bad one arrives", func() bool {
				f, _ := rec.get()
				return len(f) == 1
			})
			if f, _ := rec.get(); f[0] != (proto.PlayerLogin{User37: 1, PID: 1}) {
				t.Fatalf("handled %#v", f)
			}
			if st := s.Stats(); st.Malformed != 1 {
				t.Fatalf("malformed = %d, want 1", st.Malformed)
			}
			// Nothing was sent back: the next thing the world reads is ours.
			s.Send(proto.FriendListComplete{Target37: 5})
			if m := readMsg(t, bufio.NewReader(c)); m.Op() != proto.OpFriendListComplete {
				t.Fatalf("world got %#v", m)
			}
		})
	}
}

func TestServer_NewConnectionReplacesTheOld(t *testing.T) {
	s, rec := startServer(t)
	first := dial(t, s)
	poll.True(t, 5*time.Second, "first up", s.Up)
	second := dial(t, s)
	_ = first.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := first.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("first connection read = %v, want EOF (closed)", err)
	}
	s.Send(proto.FriendListComplete{Target37: 9})
	if m := readMsg(t, bufio.NewReader(second)); m.Op() != proto.OpFriendListComplete {
		t.Fatalf("second got %#v", m)
	}
	second.Close()
	poll.True(t, 5*time.Second, "link down", func() bool { return !s.Up() })
	// Up turns false before detach reports WorldDown: wait for the event.
	poll.Until(t, 5*time.Second, func() error {
		if _, events := rec.get(); !slices.Equal(events, []string{"up", "down", "up", "down"}) {
			return fmt.Errorf("events = %v, want [up down up down]", events)
		}
		return nil
	})
}
