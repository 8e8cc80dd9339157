package rcon

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"strings"
	"time"
)

// Why not plain gorcon (github.com/gorcon/rcon): its Conn.Execute reads
// exactly one packet, so a reply split over several packets comes back
// truncated and the rest poisons the next command; it uses request id 0 for
// everything, so a late packet cannot be told from the current reply; and
// its reader allocates whatever size the server declares. We keep its
// packet encoder and constants and write the rest: unique increasing ids,
// the empty-probe reassembly, a quiet-period end for servers that ignore the
// probe, a 1 MiB cap, connection reuse and redial.

// sourceClient keeps one authenticated Source RCON connection and runs
// commands on it one at a time.
type sourceClient struct {
	addr     string        // immutable after New
	password string        // immutable after New
	quiet    time.Duration // immutable after New
	log      *slog.Logger  // immutable after New

	// sem is held (a token in the channel) by the one Exec using conn and
	// nextID; waiting on it honours the caller's context.
	sem    chan struct{}
	lastID int32 // guarded by sem

	pool pooled[*sourceConn] // the connection is used only by the sem holder
}

func newSourceClient(addr string, cfg Config) *sourceClient {
	return &sourceClient{
		addr:     addr,
		password: cfg.Password,
		quiet:    cfg.QuietPeriod,
		log:      cfg.Logger,
		sem:      make(chan struct{}, 1),
		pool:     pooled[*sourceConn]{shut: (*sourceConn).close},
	}
}

// nextIDLocked returns a fresh positive request id (ids increase and wrap
// at MaxInt32 back to 1; -1 is the server's "auth failed").
func (c *sourceClient) nextIDLocked() int32 {
	if c.lastID == math.MaxInt32 {
		c.lastID = 0
	}
	c.lastID++
	return c.lastID
}

func (c *sourceClient) exec(ctx context.Context, command string) (string, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return "", classify(ctx, "wait for rcon connection", ctx.Err())
	}
	defer func() { <-c.sem }()

	for attempt := 0; ; attempt++ {
		conn, reused, err := c.connLocked(ctx)
		if err != nil {
			return "", err
		}
		if reused && !conn.usable() {
			c.log.Debug("pooled rcon connection was closed by the server; redialling")
			c.pool.drop(conn)
			continue
		}
		res, err := conn.exec(ctx, command, c.nextIDLocked(), c.nextIDLocked(), c.quiet)
		if err == nil && res.reusable {
			return res.out, nil
		}
		c.pool.drop(conn)
		if c.pool.isClosed() {
			return "", errClosed()
		}
		if err == nil {
			c.log.Warn("rcon reply ended by the deadline without the probe echo; reconnecting next time", "bytes", len(res.out))
			return res.out, nil
		}
		// Resend once only what the server cannot have run: nothing was
		// written, or (where usable cannot peek) nothing came back on a
		// pooled connection.
		unseen := !res.sent || (!canPeek && !res.received)
		if reused && unseen && attempt == 0 && errors.Is(err, ErrDisconnected) && ctx.Err() == nil {
			c.log.Debug("pooled rcon connection was dead; redialling")
			continue
		}
		return "", err
	}
}

// connLocked returns the pooled connection, dialling and authenticating a
// new one when there is none. Called with sem held.
func (c *sourceClient) connLocked(ctx context.Context) (conn *sourceConn, reused bool, err error) {
	conn, err = c.pool.get()
	if conn != nil || err != nil {
		return conn, true, err
	}
	conn, err = dialSource(ctx, c.addr, c.password, c.nextIDLocked())
	if err != nil {
		return nil, false, err
	}
	if err := c.pool.put(conn); err != nil {
		return nil, false, err
	}
	c.log.Debug("rcon connected")
	return conn, false, nil
}

func (c *sourceClient) close() error {
	if conn := c.pool.close(); conn != nil {
		conn.close()
	}
	return nil
}

// sourceConn is one authenticated connection. Not safe for concurrent use
// (the sourceClient's sem serialises it), except close.
type sourceConn struct {
	nc   net.Conn
	pr   *packetReader
	wbuf bytes.Buffer
	// mirrors: the server has echoed a probe on this connection, so replies
	// are ended by the echo alone, never by the quiet period.
	mirrors bool
}

func dialSource(ctx context.Context, addr, password string, authID int32) (*sourceConn, error) {
	nc, err := loopbackOnly(addr)(ctx, "tcp", addr)
	if err != nil {
		return nil, classify(ctx, "rcon dial", err)
	}
	conn := &sourceConn{nc: nc, pr: newPacketReader(bufio.NewReaderSize(nc, 16<<10), maxPacketBody)}
	if err := conn.auth(ctx, password, authID); err != nil {
		conn.close()
		return nil, err
	}
	return conn, nil
}

func (s *sourceConn) close() { _ = s.nc.Close() }

// guard applies ctx's deadline to the connection and cuts blocked I/O short
// when ctx is cancelled. The returned func undoes the cancel hook.
func (s *sourceConn) guard(ctx context.Context) (deadline time.Time, stop func() bool) {
	deadline, _ = ctx.Deadline() // Client.Exec always sets one
	_ = s.nc.SetDeadline(deadline)
	return deadline, context.AfterFunc(ctx, func() { _ = s.nc.SetDeadline(time.Unix(1, 0)) })
}

// auth authenticates. Servers answer with an optional empty
// RESPONSE_VALUE, then AUTH_RESPONSE whose id is -1 on a bad password; some
// servers instead just close the connection on a bad password.
func (s *sourceConn) auth(ctx context.Context, password string, id int32) error {
	_, stop := s.guard(ctx)
	defer stop()
	s.wbuf.Reset()
	appendPacket(&s.wbuf, typeAuth, id, password)
	if _, err := s.nc.Write(s.wbuf.Bytes()); err != nil {
		return classify(ctx, "rcon auth", err)
	}
	for range 4 { // the pre-auth empty RESPONSE_VALUE, tolerated a few times
		p, err := s.pr.next()
		switch {
		case err != nil && ctx.Err() == nil && (err == io.EOF || isConnLost(err)):
			return fmt.Errorf("rcon auth: %w: server closed the connection", ErrAuth)
		case err != nil:
			return classify(ctx, "rcon auth", err)
		case p.typ == typeResponseValue:
			continue
		case p.typ != typeAuthResponse:
			return fmt.Errorf("rcon auth: %w: unexpected packet type %d", ErrProtocol, p.typ)
		case p.id == -1:
			return fmt.Errorf("rcon auth: %w: password rejected", ErrAuth)
		default:
			// Success. The id should mirror ours, but some servers (and
			// gorcon's test server) always answer 0: any id but -1 is
			// accepted on a fresh connection.
			return nil
		}
	}
	return fmt.Errorf("rcon auth: %w: no auth response", ErrProtocol)
}

// maxStale bounds how many leftover packets usable drains.
const maxStale = 64

// usable drains packets left over from earlier commands (the trailer after
// a probe echo, the tail of a reply the quiet period ended) and reports
// whether the connection is still open, so that a connection the server
// closed while idle is redialled before the command is sent, never after.
func (s *sourceConn) usable() bool {
	for range maxStale {
		st := peekConn(s.nc)
		if s.pr.br.Buffered() == 0 && st != peekData {
			return st == peekOpen
		}
		_ = s.nc.SetReadDeadline(time.Now().Add(DefaultQuietPeriod))
		if _, err := s.pr.next(); err != nil {
			return false
		}
	}
	return false
}

// errQuiet ends a reply by the quiet period.
var errQuiet = errors.New("quiet period elapsed")

// execResult is what one command on one connection came to.
type execResult struct {
	out      string
	sent     bool // some of the command was written
	received bool // some packet of the reply (or the probe echo) arrived
	reusable bool // the connection is in a known state for the next command
}

// exec sends command with id, then an empty RESPONSE_VALUE probe with
// probeID, and gathers the RESPONSE_VALUE packets carrying id. A server
// answers requests in order, so when it mirrors the probe every packet of
// the reply has come before the echo (Valve servers then send one more
// packet, body 00 01 00 00, with the probe's id: it is not awaited but
// skipped, like any packet whose id is not the current one). A server that
// has never mirrored a probe on this connection gets the quiet period: once
// data has arrived, silence that long ends the reply. When the wait ends by
// the deadline after data has arrived, the data is returned rather than
// thrown away, and the connection is dropped.
func (s *sourceConn) exec(ctx context.Context, command string, id, probeID int32, quiet time.Duration) (execResult, error) {
	deadline, stop := s.guard(ctx)
	defer stop()
	s.wbuf.Reset()
	appendPacket(&s.wbuf, typeExecCommand, id, command)
	appendPacket(&s.wbuf, typeResponseValue, probeID, "")
	if n, err := s.nc.Write(s.wbuf.Bytes()); err != nil {
		return execResult{sent: n > 0}, classify(ctx, "rcon send", err)
	}
	var reply strings.Builder // String() does not copy
	got := false
	for {
		p, err := s.readNext(ctx, deadline, got && !s.mirrors, quiet)
		switch {
		case errors.Is(err, errQuiet):
			return execResult{out: reply.String(), sent: true, received: true, reusable: true}, nil
		case err != nil && got && isTimeout(err) && !errors.Is(ctx.Err(), context.Canceled):
			return execResult{out: reply.String(), sent: true, received: true}, nil
		case err != nil:
			return execResult{sent: true, received: got}, classify(ctx, "rcon read reply", err)
		case p.id == probeID:
			s.mirrors = true
			return execResult{out: reply.String(), sent: true, received: true, reusable: true}, nil
		case p.id == id && p.typ == typeResponseValue:
			if reply.Len()+len(p.body) > MaxResponseBytes {
				return execResult{sent: true, received: true}, fmt.Errorf("rcon read reply: %w: over %d bytes", ErrTooLarge, MaxResponseBytes)
			}
			if reply.Cap()-reply.Len() < len(p.body) {
				reply.Grow(len(p.body)) // doubles; append's 1.25x growth would copy ~5x the reply
			}
			reply.Write(p.body)
			got = true
		}
	}
}

// readNext reads the next packet. In quiet mode it first waits at most the
// quiet period (never past deadline) for the packet's first byte, and
// returns errQuiet if none comes; once a packet has started, the rest of it
// gets until deadline.
func (s *sourceConn) readNext(ctx context.Context, deadline time.Time, quietMode bool, quiet time.Duration) (packet, error) {
	if quietMode && s.pr.br.Buffered() == 0 {
		_ = s.nc.SetReadDeadline(minTime(time.Now().Add(quiet), deadline))
		_, err := s.pr.br.Peek(1)
		_ = s.nc.SetReadDeadline(deadline)
		if ctx.Err() != nil {
			// The cancel hook may have run before the line above undid it.
			_ = s.nc.SetReadDeadline(time.Unix(1, 0))
		}
		switch {
		case err != nil && isTimeout(err) && !errors.Is(ctx.Err(), context.Canceled):
			return packet{}, errQuiet
		case err != nil:
			return packet{}, err
		}
	}
	return s.pr.next()
}

func minTime(a, b time.Time) time.Time {
	if b.IsZero() || a.Before(b) {
		return a
	}
	return b
}
