package rcon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"

	"github.com/corrosion/corrosion/internal/webrcon"
)

// WebRCON (Rust): one WebSocket to ws://127.0.0.1:port/password; a request
// is a webrcon.Request; the server answers with webrcon.Frames, the reply
// carrying the request's identifier, and broadcasts chat and log lines with
// identifier 0 or -1 on the same socket.

const (
	// firstIdentifier: ours are above it, clear of the small numbers other
	// tools and the server's broadcasts (0, -1) use.
	firstIdentifier = 1000
	// maxFrameBytes bounds one WebSocket message: a 1 MiB reply plus JSON
	// escaping headroom. A bigger frame ends the connection (ErrTooLarge for
	// everything in flight on it).
	maxFrameBytes = 2*MaxResponseBytes + 64<<10
	// webrconName is the client name our requests carry.
	webrconName = "WebRcon"
)

// decodeFrame parses one server frame.
func decodeFrame(data []byte) (webrcon.Frame, error) {
	var f webrcon.Frame
	if err := json.Unmarshal(data, &f); err != nil {
		return webrcon.Frame{}, fmt.Errorf("%w: undecodable webrcon frame: %v", ErrProtocol, err)
	}
	return f, nil
}

// webClient keeps one WebRCON connection with a reader goroutine that hands
// replies to waiting Execs by identifier; commands run concurrently.
type webClient struct {
	addr  string       // immutable after New; 127.0.0.1:port, the only address dialled
	url   string       // immutable after New; holds the password: never shown
	red   redactor     // immutable after New; scrubs the password
	log   *slog.Logger // immutable after New
	bcast *broadcaster // immutable after New; nil when there is no callback
	ids   atomic.Uint32

	// dialSem is held while dialling so that concurrent Execs share one
	// dial; waiting on it honours the caller's context.
	dialSem chan struct{}

	pool pooled[*webConn]
}

func newWebClient(addr string, cfg Config) *webClient {
	c := &webClient{
		addr:    addr,
		url:     "ws://" + addr + webPath(cfg.WebRCONPath) + url.PathEscape(cfg.Password),
		red:     newRedactor(cfg.Password),
		log:     cfg.Logger,
		dialSem: make(chan struct{}, 1),
		pool:    pooled[*webConn]{shut: (*webConn).shut},
	}
	if cfg.OnBroadcast != nil {
		c.bcast = newBroadcaster(cfg.OnBroadcast, cfg.Logger)
	}
	return c
}

// webPath normalises Config.WebRCONPath to "/…/".
func webPath(p string) string {
	p = "/" + strings.Trim(p, "/") + "/"
	if p == "//" {
		return "/"
	}
	return p
}

// nextID returns a fresh identifier above firstIdentifier; unique across
// goroutines, wrapping (after ~2 billion commands) back above 1000.
func (c *webClient) nextID() int32 {
	n := c.ids.Add(1)
	return int32(firstIdentifier + n%uint32(math.MaxInt32-firstIdentifier))
}

func (c *webClient) exec(ctx context.Context, command string) (string, error) {
	for attempt := 0; ; attempt++ {
		conn, reused, err := c.getConn(ctx)
		if err != nil {
			return "", err
		}
		out, sent, err := conn.roundTrip(ctx, c.nextID(), command)
		if err == nil {
			return out, nil
		}
		if c.pool.isClosed() {
			return "", errClosed()
		}
		// Resend once only what the server cannot have seen.
		if reused && !sent && attempt == 0 && errors.Is(err, ErrDisconnected) && ctx.Err() == nil {
			c.log.Debug("pooled webrcon connection was dead; redialling")
			c.pool.drop(conn)
			continue
		}
		return "", err
	}
}

// getConn returns the live connection or dials one.
func (c *webClient) getConn(ctx context.Context) (conn *webConn, reused bool, err error) {
	if conn, err := c.live(); conn != nil || err != nil {
		return conn, true, err
	}
	select {
	case c.dialSem <- struct{}{}:
	case <-ctx.Done():
		return nil, false, classify(ctx, "wait for webrcon connection", ctx.Err())
	}
	defer func() { <-c.dialSem }()
	if conn, err := c.live(); conn != nil || err != nil { // dialled while we waited
		return conn, true, err
	}
	conn, err = c.dial(ctx)
	if err != nil {
		return nil, false, err
	}
	if err := c.pool.put(conn); err != nil {
		return nil, false, err
	}
	return conn, false, nil
}

// live returns the current connection if it is still open: its reader
// runs and the server has not closed the socket (which the reader may not
// have noticed yet).
func (c *webClient) live() (*webConn, error) {
	conn, err := c.pool.get()
	if conn == nil || err != nil {
		return nil, err
	}
	if !conn.isDone() && peekConn(conn.nc) != peekClosed {
		return conn, nil
	}
	c.log.Debug("pooled webrcon connection was closed by the server; redialling")
	c.pool.drop(conn)
	return nil, nil
}

// dial opens the WebSocket. coder/websocket's errors quote the URL, which
// holds the password: every error text is built from the sentinel and a
// scrubbed message, never the original error.
func (c *webClient) dial(ctx context.Context) (*webConn, error) {
	var nc net.Conn // the TCP connection under the WebSocket, for peekConn
	dial := loopbackOnly(c.addr)
	hc := &http.Client{
		Transport: &http.Transport{
			Proxy: nil, // 127.0.0.1: never through a proxy
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				conn, err := dial(ctx, network, addr)
				nc = conn
				return conn, err
			},
			DisableKeepAlives: true,
		},
		// Never follow a redirect: it would carry the password (in the
		// path and the Referer) wherever it points.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	ws, resp, err := websocket.Dial(ctx, c.url, &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		if resp != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
			return nil, fmt.Errorf("webrcon dial: %w: server answered HTTP %d", ErrAuth, resp.StatusCode)
		}
		if resp != nil && resp.StatusCode >= 300 && resp.StatusCode < 400 {
			return nil, fmt.Errorf("webrcon dial: %w: server answered HTTP %d (a redirect, not followed)", ErrProtocol, resp.StatusCode)
		}
		if resp != nil {
			return nil, fmt.Errorf("webrcon dial: %w: server answered HTTP %d, not a WebSocket upgrade", ErrProtocol, resp.StatusCode)
		}
		return nil, c.red.Error(classify(ctx, "webrcon dial", err))
	}
	ws.SetReadLimit(maxFrameBytes)
	conn := newWebConn(ws, nc, c.bcast, c.log)
	go conn.readLoop()
	c.log.Debug("webrcon connected")
	return conn, nil
}

func (c *webClient) close() error {
	if conn := c.pool.close(); conn != nil {
		conn.shut()
		<-conn.done
	}
	if c.bcast != nil {
		c.bcast.stop()
	}
	return nil
}

// broadcaster hands non-reply frames to the OnBroadcast callback from one
// goroutine. Drop policy: when maxQueued frames or maxQueuedBytes are
// waiting, new frames are dropped and counted; the count is logged when
// delivery catches up.
type broadcaster struct {
	fn      func(string) // immutable
	log     *slog.Logger // immutable
	ch      chan string
	quit    chan struct{}
	once    sync.Once
	bytes   atomic.Int64 // bytes waiting in ch
	dropped atomic.Int64 // frames dropped since the last log line
}

const (
	maxQueued      = 256
	maxQueuedBytes = 4 << 20
)

func newBroadcaster(fn func(string), log *slog.Logger) *broadcaster {
	b := &broadcaster{fn: fn, log: log, ch: make(chan string, maxQueued),
		quit: make(chan struct{})}
	go b.run()
	return b
}

func (b *broadcaster) send(text string) {
	if b == nil {
		return
	}
	if b.bytes.Add(int64(len(text))) > maxQueuedBytes {
		b.bytes.Add(-int64(len(text)))
		b.dropped.Add(1)
		return
	}
	select {
	case b.ch <- text:
	default:
		b.bytes.Add(-int64(len(text)))
		b.dropped.Add(1)
	}
}

func (b *broadcaster) run() {
	for {
		select {
		case <-b.quit:
			return
		case text := <-b.ch:
			b.bytes.Add(-int64(len(text)))
			select {
			case <-b.quit: // never called after stop
				return
			default:
			}
			b.fn(text)
			if n := b.dropped.Swap(0); n > 0 {
				b.log.Warn("webrcon broadcast frames dropped: consumer too slow", "dropped", n)
			}
		}
	}
}

// stop ends delivery. It does not wait for a callback in progress (which
// may block), but none starts after stop returns.
func (b *broadcaster) stop() {
	b.once.Do(func() { close(b.quit) })
}
