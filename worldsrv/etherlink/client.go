package etherlink

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
)

// ErrRunning is Run's error when the Client is already running.
var ErrRunning = errors.New("etherlink: Run called twice")

// ErrNotOurSidecar: the listener on the sidecar's port did not prove that
// it knows the link token (no LinkProof within Config.ProofTimeout, a
// wrong one, or something else instead): it is not this world's sidecar
// (another world's ether, an ether without the token, any other program),
// so the world does not link to it and never shows it the token.
var ErrNotOurSidecar = errors.New("etherlink: the listener is not this world's sidecar")

// Client is the world's link to its ether sidecar. Its methods are safe for
// concurrent use; Send and Drain never block. Lock order: mu and drainMu
// are never held together, nor with the log limiters' locks.
type Client struct {
	cfg    Config        // immutable after New (defaulted)
	log    *slog.Logger  // immutable after New
	in     chan Event    // immutable after New; the inbound queue (a channel: safe)
	logins chan Event    // immutable after New; the login-answer queue (a channel: safe)
	wake   chan struct{} // immutable after New; capacity 1: Send tells the writer there is work
	acked  chan struct{} // immutable after New; capacity 1: the reader tells Flush a save was acknowledged or the link went down
	ran    atomic.Bool   // no lock; set by the first Run

	drainMu sync.Mutex // guards drain; never held across a callback
	drain   drainState // guarded by drainMu

	mu  sync.Mutex // guards up and out; never held across I/O or a callback
	up  bool       // guarded by mu; true from the handshake to the loss of a connection
	out outQueue   // guarded by mu

	stats    counters   // atomic, no lock
	badFrame logLimiter // own lock; malformed inbound frames
	badSend  logLimiter // own lock; outbound messages too large for a frame
}

// New makes a Client for cfg; Run connects it. A bad Config is reported by
// Run (see Config.Validate).
func New(cfg Config) *Client {
	cfg = cfg.withDefaults()
	return &Client{
		cfg:    cfg,
		log:    cfg.Logger.With("component", "etherlink", "addr", cfg.Addr),
		in:     make(chan Event, cfg.InEvents),
		logins: make(chan Event, cfg.InLogins),
		wake:   make(chan struct{}, 1),
		acked:  make(chan struct{}, 1),
	}
}

// Up reports whether the link is connected and registered.
func (c *Client) Up() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.up
}

// Run keeps the link up until ctx ends: it dials, serves the connection
// until it is lost, waits (Backoff) and dials again. It returns nil when
// ctx ends, or at once the Config's error or ErrRunning. Each state change
// is logged once, never each retry (see stateLog).
func (c *Client) Run(ctx context.Context) error {
	if err := c.cfg.Validate(); err != nil {
		return err
	}
	if !c.ran.CompareAndSwap(false, true) {
		return ErrRunning
	}
	var wait time.Duration
	states := stateLog{log: c.log, addr: c.cfg.Addr, maxBackoff: c.cfg.Backoff.Max}
	for {
		connected, upFor, err := c.session(ctx, &states)
		if ctx.Err() != nil {
			return nil
		}
		wait = c.cfg.Backoff.Next(wait, upFor)
		states.ended(connected, upFor, err, wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// session dials once and, when that works, serves the connection until it
// ends. It reports whether it connected, how long the connection was up,
// and why it failed or ended.
//
// Order on connect: with a token, the listener's proof (prove); LinkAuth
// (with a token) and WorldRegister are written before anything else; then the frames queued for the dead
// connection are dropped (counted) and Send opens; then the writer starts
// and Connected is queued; only then does the reader start, so every
// frame of the connection follows its Connected event.
//
// Teardown (read error, write error or ctx): Send closes (up = false); the
// connection is closed, which ends the reader and unblocks the writer; the
// writer is waited for; Disconnected is queued.
func (c *Client) session(ctx context.Context, states *stateLog) (connected bool, upFor time.Duration, err error) {
	d := net.Dialer{Timeout: c.cfg.DialTimeout}
	nc, err := d.DialContext(ctx, "tcp", c.cfg.Addr)
	if err != nil {
		return false, 0, fmt.Errorf("dial: %w", err)
	}
	cn := newConn(nc, c.stats.connects.Load()+1) // the count once this connection is made
	stop := context.AfterFunc(ctx, func() { cn.fail(ctx.Err()) })
	defer stop()
	r := bufio.NewReaderSize(nc, 64<<10)
	if err := c.handshake(nc, r); err != nil {
		cn.fail(err)
		return false, 0, err
	}
	c.mu.Lock()
	stale := c.dropStaleLocked()
	c.up = true
	c.mu.Unlock()
	started := time.Now()
	n := c.stats.connects.Add(1)
	// Logs now (or, while the link flaps, once it has lasted) and, deferred,
	// cancels a log line still pending when the connection ends.
	defer states.connected("node", c.cfg.NodeID, "link_token", len(c.cfg.Token) > 0,
		"reconnects", n-1, "stale_frames_dropped", stale)()

	go c.writeLoop(cn, c.wake)
	if c.deliver(Event{Kind: Connected, gen: cn.gen}, cn.done) {
		cn.fail(c.readLoop(cn, r))
	}

	c.mu.Lock()
	c.up = false
	c.mu.Unlock()
	c.tellFlush()
	cn.fail(errors.New("closed"))
	<-cn.writerDone
	reason := cn.cause()
	c.deliver(Event{Kind: Disconnected, Err: reason, gen: cn.gen}, ctx.Done())
	return true, time.Since(started), reason
}

// handshake links nc, read through r, before any other frame: with a
// token, it first has the listener prove that it knows the token (prove);
// then it writes LinkAuth (with a token), WorldRegister, WorldInfo (when
// the world has something to say) and FeatureQuery (QueryFeatures), in one
// write. WorldInfo, like the token,
// never reaches a listener that has not proved it is the world's sidecar.
func (c *Client) handshake(nc net.Conn, r *bufio.Reader) error {
	var b []byte
	var err error
	if len(c.cfg.Token) > 0 {
		if err := c.prove(nc, r); err != nil {
			return err
		}
		if b, err = proto.AppendFrame(b, proto.LinkAuth{Token: c.cfg.Token}); err != nil {
			return fmt.Errorf("handshake: %w", err)
		}
	}
	b, _ = proto.AppendFrame(b, proto.WorldRegister{NodeID: c.cfg.NodeID}) // 2 bytes: fits
	if i := c.cfg.Info; len(i.License)+len(i.Instance)+len(i.PublicURL) > 0 {
		if b, err = proto.AppendFrame(b, i); err != nil {
			return fmt.Errorf("handshake: %w", err)
		}
	}
	if c.cfg.QueryFeatures {
		b, _ = proto.AppendFrame(b, proto.FeatureQuery{}) // 1 byte: fits
	}
	_ = nc.SetWriteDeadline(time.Now().Add(c.cfg.WriteTimeout))
	if _, err := nc.Write(b); err != nil {
		return fmt.Errorf("handshake: write: %w", err)
	}
	return nil
}

// prove sends a LinkChallenge with a fresh nonce and wants the LinkProof of
// the token for it back within ProofTimeout; anything else is
// ErrNotOurSidecar. The token itself is sent only after this.
func (c *Client) prove(nc net.Conn, r *bufio.Reader) error {
	var nonce [proto.NonceLen]byte
	_, _ = rand.Read(nonce[:]) // crypto/rand.Read never fails
	_ = nc.SetDeadline(time.Now().Add(c.cfg.ProofTimeout))
	defer func() { _ = nc.SetDeadline(time.Time{}) }()
	if err := proto.WriteFrame(nc, proto.LinkChallenge{Nonce: nonce}); err != nil {
		return fmt.Errorf("handshake: write the link challenge: %w", err)
	}
	p, err := proto.ReadFrame(r, nil)
	if err != nil {
		return fmt.Errorf("%w: no link proof within %v: %w", ErrNotOurSidecar, c.cfg.ProofTimeout, err)
	}
	m, err := proto.DecodeOutbound(p)
	if err != nil {
		return fmt.Errorf("%w: it answered a frame that is no link proof: %w", ErrNotOurSidecar, err)
	}
	proof, ok := m.(*proto.LinkProof)
	switch {
	case !ok:
		return fmt.Errorf("%w: it answered %v, not a link proof", ErrNotOurSidecar, m.Op())
	case !proto.ValidProof(c.cfg.Token, nonce, proof.MAC):
		return fmt.Errorf("%w: its link proof is for another token", ErrNotOurSidecar)
	}
	return nil
}

// conn is one connection's teardown state, shared by its reader and writer.
type conn struct {
	nc         net.Conn      // immutable after newConn
	gen        uint64        // immutable after newConn; tags the connection's events
	done       chan struct{} // closed by the first fail
	writerDone chan struct{} // closed when writeLoop returns
	once       sync.Once     // makes fail's first call the only one
	err        error         // written once by fail before done closes; read after done
}

func newConn(nc net.Conn, gen uint64) *conn {
	return &conn{nc: nc, gen: gen, done: make(chan struct{}), writerDone: make(chan struct{})}
}

// fail ends the connection; the first caller's err is its cause.
func (cn *conn) fail(err error) {
	cn.once.Do(func() {
		cn.err = err
		close(cn.done)
		cn.nc.Close()
	})
}

// cause is why the connection ended; only after fail.
func (cn *conn) cause() error {
	<-cn.done
	return cn.err
}
