// Package a2stest is a fake Steam game server's query port for tests: a
// UDP responder on 127.0.0.1:0 that answers A2S_INFO with or without a
// challenge, slowly, with a malformed packet, or not at all. For tests
// only: production code never imports it.
package a2stest

import (
	"bytes"
	"crypto/rand"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/a2s"
)

// Options configures a Server. The zero value answers every request at
// once with a zero Info.
type Options struct {
	// Info is what the server reports.
	Info a2s.Info
	// Challenge: answer a request without the right challenge with an
	// S2C_CHALLENGE, as Valve's servers have done since 2020.
	Challenge bool
	// Delay is how long the server waits before each answer.
	Delay time.Duration
	// Raw, when set, is sent instead of the info reply (a malformed one).
	Raw []byte
	// Silent: read requests, never answer (a filtered port, or not a
	// query port).
	Silent bool
}

// Server is a fake query port.
type Server struct {
	opts      Options        // immutable after New
	conn      net.PacketConn // immutable after New
	challenge [4]byte        // immutable after New
	done      chan struct{}  // closed by Close
	served    sync.WaitGroup // the read loop and pending answers

	requests atomic.Int64 // A2S_INFO requests received, valid or not
}

// New starts a server and stops it when t's test ends.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{opts: opts, conn: conn, done: make(chan struct{})}
	_, _ = rand.Read(s.challenge[:])
	s.served.Go(s.serve)
	t.Cleanup(s.Close)
	return s
}

// Addr is the server's "127.0.0.1:port".
func (s *Server) Addr() string { return s.conn.LocalAddr().String() }

// Port is the server's UDP port.
func (s *Server) Port() int { return s.conn.LocalAddr().(*net.UDPAddr).Port }

// Requests is how many packets the server has received.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Close stops the server and waits for its goroutines.
func (s *Server) Close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	_ = s.conn.Close()
	s.served.Wait()
}

func (s *Server) serve() {
	buf := make([]byte, 2048)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		} else if err != nil {
			continue
		}
		s.requests.Add(1)
		if s.opts.Silent {
			continue
		}
		challenge, err := a2s.ParseRequest(buf[:n])
		if err != nil {
			continue // real servers ignore junk
		}
		reply := s.answer(challenge)
		s.served.Go(func() { s.send(reply, from) })
	}
}

// answer is the reply to a request carrying challenge.
func (s *Server) answer(challenge []byte) []byte {
	switch {
	case s.opts.Challenge && !bytes.Equal(challenge, s.challenge[:]):
		return a2s.AppendChallenge(nil, s.challenge)
	case s.opts.Raw != nil:
		return s.opts.Raw
	default:
		return a2s.AppendInfo(nil, s.opts.Info)
	}
}

func (s *Server) send(reply []byte, to net.Addr) {
	if s.opts.Delay > 0 {
		timer := time.NewTimer(s.opts.Delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-s.done:
			return
		}
	}
	_, _ = s.conn.WriteTo(reply, to)
}
