// Package rcontest provides RCON test servers, Source RCON and WebRCON, with
// knobs for the ways real game servers misbehave (split replies, ignored
// probes, rejected passwords, stalls, dropped connections). Both listen on
// 127.0.0.1:0. For tests only: production code never imports it.
package rcontest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gorcon "github.com/gorcon/rcon"
)

// Handler answers one command.
type Handler func(command string) string

// ProbeTrailer is the body of the extra packet Valve servers send after
// mirroring an empty RESPONSE_VALUE probe.
const ProbeTrailer = "\x00\x01\x00\x00"

// maxRequest caps a request packet's declared size.
const maxRequest = 64 << 10

// SourceOptions configures a SourceServer. The zero value is a well-behaved
// server with password "" that answers every command with "".
type SourceOptions struct {
	Password string
	// Handler answers commands; nil answers "".
	Handler Handler
	// PacketSize is the largest body per reply packet; 4096 when zero.
	// Longer replies are split.
	PacketSize int
	// NoProbeEcho: never mirror the client's empty RESPONSE_VALUE probe.
	NoProbeEcho bool
	// NoPreAuthPacket: skip the empty RESPONSE_VALUE sent before
	// AUTH_RESPONSE.
	NoPreAuthPacket bool
	// RejectByClose: on a bad password close the connection instead of
	// answering AUTH_RESPONSE with id -1.
	RejectByClose bool
}

// SourceServer is a Source RCON server for tests.
type SourceServer struct {
	opts      SourceOptions      // immutable after NewSource
	ln        net.Listener       // immutable after NewSource
	conns     *connSet[net.Conn] // immutable after NewSource
	serveDone chan struct{}      // closed when the accept loop has ended

	stall    atomic.Bool  // commands are never answered
	delay    atomic.Int64 // pause between the packets of a reply, in ns
	closeMid atomic.Bool  // the next replies are cut in half, then the connection closed
	accepted atomic.Int64 // connections accepted

	mu       sync.Mutex
	commands []string // guarded by mu
	ids      []int32  // guarded by mu
}

// NewSource starts a SourceServer on 127.0.0.1:0; tb's cleanup closes it.
func NewSource(tb testing.TB, opts SourceOptions) *SourceServer {
	tb.Helper()
	if opts.PacketSize <= 0 {
		opts.PacketSize = 4096
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("rcontest: listen: %v", err)
	}
	s := &SourceServer{opts: opts, ln: ln, serveDone: make(chan struct{}),
		conns: newConnSet(func(c net.Conn) { _ = c.Close() })}
	go s.serve()
	tb.Cleanup(s.Close)
	return s
}

// Port is the TCP port the server listens on.
func (s *SourceServer) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// Addr is "127.0.0.1:port".
func (s *SourceServer) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port()) }

// SetStall makes the server stop answering commands (on every connection)
// while on: a stalled connection reads and ignores everything after.
func (s *SourceServer) SetStall(on bool) { s.stall.Store(on) }

// SetCloseMidResponse makes the server write half of each reply and then
// close the connection while on.
func (s *SourceServer) SetCloseMidResponse(on bool) { s.closeMid.Store(on) }

// SetPacketDelay makes the server pause d between the packets of a
// reply (and before a probe echo), as a busy game server might.
func (s *SourceServer) SetPacketDelay(d time.Duration) { s.delay.Store(int64(d)) }

// Accepted is the number of connections accepted so far.
func (s *SourceServer) Accepted() int { return int(s.accepted.Load()) }

// Open is the number of connections currently open.
func (s *SourceServer) Open() int { return s.conns.count() }

// Commands returns the commands executed so far, in order.
func (s *SourceServer) Commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.commands...)
}

// RequestIDs returns the id of every packet received so far (auth,
// commands, probes), in arrival order.
func (s *SourceServer) RequestIDs() []int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int32(nil), s.ids...)
}

// DropConnections closes every open client connection (the server keeps
// listening), as a game server restart would.
func (s *SourceServer) DropConnections() { s.conns.dropAll() }

// Close stops the server and closes every connection. Idempotent.
func (s *SourceServer) Close() {
	s.conns.shut(func() { _ = s.ln.Close() })
	<-s.serveDone
}

func (s *SourceServer) serve() {
	defer close(s.serveDone)
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		if !s.conns.add(c) {
			_ = c.Close()
			return
		}
		s.accepted.Add(1)
		go s.handle(c)
	}
}

// sourceSession is one client connection.
type sourceSession struct {
	s       *SourceServer
	c       net.Conn
	br      *bufio.Reader
	bw      *bufio.Writer
	authed  bool
	stalled bool
}

func (s *SourceServer) handle(c net.Conn) {
	defer s.conns.done(c)
	ss := &sourceSession{s: s, c: c, br: bufio.NewReader(c), bw: bufio.NewWriterSize(c, 64<<10)}
	for {
		p, err := readRequest(ss.br)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.ids = append(s.ids, p.ID)
		s.mu.Unlock()
		if !ss.serve(p) {
			return
		}
		if packetBuffered(ss.br) {
			continue // answer pipelined requests (command + probe) in one write
		}
		if ss.bw.Flush() != nil {
			return
		}
	}
}

// serve answers one request; false closes the connection.
func (ss *sourceSession) serve(p *gorcon.Packet) bool {
	o := &ss.s.opts
	switch {
	case ss.stalled:
		return true
	case p.Type == gorcon.SERVERDATA_AUTH:
		ok := p.Body() == o.Password
		if !ok && o.RejectByClose {
			return false
		}
		if !o.NoPreAuthPacket {
			ss.write(gorcon.SERVERDATA_RESPONSE_VALUE, p.ID, "")
		}
		id := p.ID
		if !ok {
			id = -1
		}
		ss.write(gorcon.SERVERDATA_AUTH_RESPONSE, id, "")
		ss.authed = ok
		return true
	case !ss.authed:
		return false // like real servers: nothing before auth
	case p.Type == gorcon.SERVERDATA_EXECCOMMAND:
		return ss.exec(p)
	case p.Type == gorcon.SERVERDATA_RESPONSE_VALUE && !o.NoProbeEcho:
		ss.write(gorcon.SERVERDATA_RESPONSE_VALUE, p.ID, "")
		ss.write(gorcon.SERVERDATA_RESPONSE_VALUE, p.ID, ProbeTrailer)
	}
	return true
}

func (ss *sourceSession) exec(p *gorcon.Packet) bool {
	s := ss.s
	if s.stall.Load() {
		ss.stalled = true
		return true
	}
	s.mu.Lock()
	s.commands = append(s.commands, p.Body())
	s.mu.Unlock()
	out := ""
	if s.opts.Handler != nil {
		out = s.opts.Handler(p.Body())
	}
	if s.closeMid.Load() {
		var buf bytes.Buffer
		writeSplit(&buf, p.ID, out, s.opts.PacketSize)
		_, _ = ss.bw.Write(buf.Bytes()[:buf.Len()/2])
		_ = ss.bw.Flush()
		return false
	}
	if d := time.Duration(s.delay.Load()); d > 0 {
		return ss.writeSlowly(p.ID, out, d)
	}
	writeSplit(ss.bw, p.ID, out, s.opts.PacketSize)
	return true
}

// writeSlowly writes a reply packet by packet, flushing each and pausing d
// before the next (and after the last, so a probe echo comes late too).
func (ss *sourceSession) writeSlowly(id int32, out string, d time.Duration) bool {
	size := ss.s.opts.PacketSize
	for first := true; first || out != ""; first = false {
		n := min(size, len(out))
		writeSplit(ss.bw, id, out[:n], size)
		out = out[n:]
		if ss.bw.Flush() != nil {
			return false
		}
		time.Sleep(d) // the server's behaviour under test, not a wait in a test
	}
	return true
}

func (ss *sourceSession) write(typ, id int32, body string) {
	_, _ = gorcon.NewPacket(typ, id, body).WriteTo(ss.bw)
}

// writeSplit writes out as RESPONSE_VALUE packets of at most size bytes
// each (one empty packet for an empty reply). It encodes by hand rather
// than with gorcon.NewPacket, which copies every chunk twice: the server
// shares the CPU with the client in benchmarks.
func writeSplit(w io.Writer, id int32, out string, size int) {
	var hdr [12]byte
	binary.LittleEndian.PutUint32(hdr[4:], uint32(id))
	binary.LittleEndian.PutUint32(hdr[8:], uint32(gorcon.SERVERDATA_RESPONSE_VALUE))
	for first := true; first || out != ""; first = false {
		n := min(size, len(out))
		binary.LittleEndian.PutUint32(hdr[0:], uint32(n+10))
		_, _ = w.Write(hdr[:])
		_, _ = io.WriteString(w, out[:n])
		_, _ = w.Write([]byte{0, 0})
		out = out[n:]
	}
}

// packetBuffered reports whether a whole request is already buffered.
func packetBuffered(br *bufio.Reader) bool {
	if br.Buffered() < 4 {
		return false
	}
	head, _ := br.Peek(4)
	return br.Buffered() >= 4+int(int32(binary.LittleEndian.Uint32(head)))
}

// readRequest reads one client packet with gorcon's decoder, after checking
// the declared size (gorcon's ReadFrom would allocate any size).
func readRequest(br *bufio.Reader) (*gorcon.Packet, error) {
	head, err := br.Peek(4)
	if err != nil {
		return nil, err
	}
	size := int32(binary.LittleEndian.Uint32(head))
	if size < gorcon.MinPacketSize || size > maxRequest {
		return nil, fmt.Errorf("rcontest: request size %d out of range", size)
	}
	p := &gorcon.Packet{}
	if _, err := p.ReadFrom(br); err != nil {
		return nil, err
	}
	return p, nil
}
