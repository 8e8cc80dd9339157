package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/corrosion/corrosion/internal/ctxtime"
)

// kind names for logs.
const (
	kindSource = "source"
	kindWeb    = "webrcon"
)

// ServeSource serves Source RCON on ln until ctx is done or Close is
// called, then closes ln and the connections it accepted and returns nil
// (Close, not ServeSource, waits for their goroutines). Another accept
// error is returned. A connection over the session cap, or from an address
// blocked after failed logins, is closed at once.
func (s *Server) ServeSource(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopLife := context.AfterFunc(s.life, cancel)
	defer stopLife()
	stopLn := context.AfterFunc(ctx, func() { _ = ln.Close() })
	defer stopLn()
	s.log.Info("source rcon listening", "addr", ln.Addr().String())
	var pause time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !isTemporary(err) {
				return fmt.Errorf("source rcon accept: %w", err)
			}
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			s.log.Warn("source rcon accept failed; retrying", "err", err, "in", pause)
			if !ctxtime.Sleep(ctx, pause) {
				return nil
			}
			continue
		}
		pause = 0
		s.startSource(ctx, nc)
	}
}

func (s *Server) startSource(ctx context.Context, nc net.Conn) {
	addr := nc.RemoteAddr().String()
	if ok, wait := s.limit.allow(addr, s.cfg.Now()); !ok {
		// Blocked addresses get no session slot: closed at once, so
		// that silent connections cannot hold every slot.
		s.log.Debug("source rcon connection refused: address blocked after failed logins", "addr", addr, "retry_in", wait)
		_ = nc.Close()
		return
	}
	ss, ok := s.begin(func() { _ = nc.Close() })
	if !ok {
		s.log.Warn("source rcon connection refused: session cap reached or shutting down", "addr", addr, "cap", s.cfg.MaxConns)
		_ = nc.Close()
		return
	}
	go func() {
		defer s.end(ss)
		stop := context.AfterFunc(ctx, func() { _ = nc.Close() })
		defer stop()
		sc := &sourceConn{s: s, ctx: ctx, nc: nc, pr: newPacketReader(nc), addr: addr, started: time.Now()}
		sc.serve()
	}()
}

// sourceConn is one Source RCON connection, served by one goroutine.
type sourceConn struct {
	s       *Server
	ctx     context.Context // ServeSource's: ends with it and with Close
	nc      net.Conn
	pr      *packetReader
	addr    string
	started time.Time // when accepted: the auth deadline counts from it
	authed  bool
	wbuf    []byte
}

// serve reads and answers packets one at a time, in order, until the
// client leaves, idles out, breaks the protocol or fails to authenticate.
func (c *sourceConn) serve() {
	for {
		deadline := time.Now().Add(c.s.cfg.IdleTimeout)
		if !c.authed {
			deadline = c.started.Add(c.s.cfg.AuthTimeout)
		}
		_ = c.nc.SetReadDeadline(deadline)
		p, err := c.pr.next()
		if err != nil {
			c.logEnd(err)
			return
		}
		c.wbuf = c.wbuf[:0]
		keep := c.handle(p)
		if !c.flush() {
			return
		}
		if !keep {
			if !c.authed {
				lingerClose(c.nc)
			}
			return
		}
	}
}

// flush writes what c.wbuf holds as one write; false when the write
// failed (the connection is done).
func (c *sourceConn) flush() bool {
	if len(c.wbuf) == 0 {
		return true
	}
	_ = c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err := c.nc.Write(c.wbuf)
	c.wbuf = c.wbuf[:0]
	if err != nil {
		c.s.log.Debug("source rcon write failed", "addr", c.addr, "err", err)
		return false
	}
	return true
}

// authGap separates the two packets of an auth answer. Valve's server
// sends them as two writes, and clients that decode one packet per socket
// read (rcon-srcds, one of the most used Node clients) wait forever for an
// AUTH_RESPONSE that came in the same read as the empty RESPONSE_VALUE.
// Two writes back to back can still reach a busy client as one read; the
// pause makes that unlikely at no cost worth naming (one per login).
const authGap = 50 * time.Millisecond

// lingerTime bounds lingerClose.
const lingerTime = time.Second

// lingerClose half-closes nc and discards what the client still sends for
// a moment, so that a refusal written just before is not lost to the TCP
// reset a close with unread input would cause.
func lingerClose(nc net.Conn) {
	if tc, ok := nc.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
	}
	_ = nc.SetReadDeadline(time.Now().Add(lingerTime))
	_, _ = io.Copy(io.Discard, io.LimitReader(nc, 64<<10))
}

// handle answers one packet into c.wbuf; false closes the connection
// after the answer is written.
func (c *sourceConn) handle(p packet) bool {
	switch {
	case p.typ == typeAuth:
		return c.auth(p)
	case !c.authed:
		c.s.log.Info("source rcon connection closed: packet before auth", "addr", c.addr, "type", p.typ)
		return false
	case p.typ == typeExecCommand:
		r := c.s.exec(c.ctx, kindSource, c.addr, string(p.body))
		c.wbuf = appendReply(c.wbuf, p.id, strings.ReplaceAll(r.Text, "\x00", " "))
		return true
	case p.typ == typeResponseValue:
		// The end-of-reply probe: mirror it, then the trailer Valve
		// servers send after a mirror.
		c.wbuf = appendPacket(c.wbuf, p.id, typeResponseValue, "")
		c.wbuf = appendPacket(c.wbuf, p.id, typeResponseValue, probeTrailer)
		return true
	}
	c.s.log.Info("source rcon connection closed: unknown packet type", "addr", c.addr, "type", p.typ)
	return false
}

// auth answers SERVERDATA_AUTH as Valve servers do: an empty
// RESPONSE_VALUE, then, in a write of its own (authGap), AUTH_RESPONSE with the request's id, or -1 for a
// refused password, after which the connection is closed.
func (c *sourceConn) auth(p packet) bool {
	outcome, _ := c.s.authenticate(kindSource, c.addr, string(p.body))
	c.wbuf = appendPacket(c.wbuf, p.id, typeResponseValue, "")
	if !c.flush() || !ctxtime.Sleep(c.ctx, authGap) {
		return false
	}
	if outcome != authOK {
		c.wbuf = appendPacket(c.wbuf, authFailedID, typeAuthResponse, "")
		return false
	}
	c.wbuf = appendPacket(c.wbuf, p.id, typeAuthResponse, "")
	c.authed = true
	return true
}

func (c *sourceConn) logEnd(err error) {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		c.s.log.Debug("source rcon connection closed", "addr", c.addr)
	case errors.Is(err, ErrMalformed):
		c.s.log.Info("source rcon connection closed: malformed packet", "addr", c.addr, "err", err)
	case errors.As(err, &ne) && ne.Timeout() && !c.authed:
		// Counts as a wrong password: a client holding slots without
		// logging in gets blocked like one guessing.
		block := c.s.limit.fail(c.addr, c.s.cfg.Now())
		c.s.log.Info("source rcon connection closed: no auth in time", "addr", c.addr, "blocked_for", block)
	case errors.As(err, &ne) && ne.Timeout():
		c.s.log.Info("source rcon connection closed: idle", "addr", c.addr)
	default:
		c.s.log.Debug("source rcon connection ended", "addr", c.addr, "err", err)
	}
}

// isTemporary reports whether an accept error is worth retrying (out of
// file descriptors and the like), as net/http's Serve does.
func isTemporary(err error) bool {
	var ne interface{ Temporary() bool }
	return errors.As(err, &ne) && ne.Temporary() && !errors.Is(err, net.ErrClosed)
}
