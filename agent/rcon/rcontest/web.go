package rcontest

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/corrosion/corrosion/internal/webrcon"
)

// WebOptions configures a WebServer. The zero value is a quiet server with
// password "" that answers every command with "".
type WebOptions struct {
	Password string
	// Handler answers commands; nil answers "". Commands are handled
	// concurrently, each in its own goroutine, so replies may come out of
	// order.
	Handler Handler
	// Noise: before each reply send a chat frame (identifier -1), a log
	// frame (identifier 0) and the "[rcon] " echo of the command carrying
	// the request's identifier, as Rust does.
	Noise bool
	// PathPrefix is the URL path before the password: "/" when empty
	// (Rust); "/rcon/" for the world server's layout.
	PathPrefix string
	// RejectByClose: on a bad password accept the WebSocket and close it at
	// once (what Rust does) instead of answering HTTP 401.
	RejectByClose bool
	// RedirectTo: when set, every request is answered with HTTP 302 Found
	// and this Location, as a hostile or misconfigured server might.
	RedirectTo string
}

// WebServer is a Rust-style WebRCON server for tests, at
// ws://127.0.0.1:port/password (or /PathPrefix/password).
type WebServer struct {
	opts WebOptions   // immutable after NewWeb
	ln   net.Listener // immutable after NewWeb
	srv  *http.Server // immutable after NewWeb

	stall    atomic.Bool
	accepted atomic.Int64
	conns    *connSet[*websocket.Conn] // immutable after NewWeb

	mu       sync.Mutex
	requests []webrcon.Request // guarded by mu
}

// NewWeb starts a WebServer on 127.0.0.1:0; tb's cleanup closes it.
func NewWeb(tb testing.TB, opts WebOptions) *WebServer {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("rcontest: listen: %v", err)
	}
	s := &WebServer{opts: opts, ln: ln, conns: newConnSet(func(c *websocket.Conn) { _ = c.CloseNow() })}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serveHTTP), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	tb.Cleanup(s.Close)
	return s
}

// Port is the TCP port the server listens on.
func (s *WebServer) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// Addr is "127.0.0.1:port".
func (s *WebServer) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port()) }

// SetStall makes the server stop answering commands while on.
func (s *WebServer) SetStall(on bool) { s.stall.Store(on) }

// Accepted is the number of WebSocket connections accepted so far
// (including ones closed for a bad password).
func (s *WebServer) Accepted() int { return int(s.accepted.Load()) }

// Requests returns the command frames received so far, in arrival order.
func (s *WebServer) Requests() []webrcon.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]webrcon.Request(nil), s.requests...)
}

// Broadcast sends a log frame (identifier 0) to every connected client.
func (s *WebServer) Broadcast(text string) {
	for _, c := range s.conns.snapshot() {
		_ = writeFrame(c, webrcon.Frame{Message: text, Identifier: 0, Type: webrcon.TypeGeneric})
	}
}

// DropConnections closes every client connection; the server keeps
// listening.
func (s *WebServer) DropConnections() { s.conns.dropAll() }

// Close stops the server and closes every connection. Idempotent.
func (s *WebServer) Close() { s.conns.shut(func() { _ = s.srv.Close() }) }

func (s *WebServer) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.RedirectTo != "" {
		http.Redirect(w, r, s.opts.RedirectTo, http.StatusFound)
		return
	}
	prefix := "/" + strings.Trim(s.opts.PathPrefix, "/") + "/"
	if prefix == "//" {
		prefix = "/"
	}
	ok := strings.HasPrefix(r.URL.Path, prefix) && strings.TrimPrefix(r.URL.Path, prefix) == s.opts.Password
	if !ok && !s.opts.RejectByClose {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	s.accepted.Add(1)
	if !ok {
		_ = c.Close(websocket.StatusNormalClosure, "")
		return
	}
	c.SetReadLimit(1 << 20)
	if !s.conns.add(c) {
		_ = c.CloseNow()
		return
	}
	defer s.conns.done(c)
	s.readLoop(c)
}

func (s *WebServer) readLoop(c *websocket.Conn) {
	var handlers sync.WaitGroup
	defer handlers.Wait()
	for {
		_, data, err := c.Read(context.Background())
		if err != nil {
			return
		}
		var req webrcon.Request
		if json.Unmarshal(data, &req) != nil {
			continue
		}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		s.mu.Unlock()
		if s.stall.Load() {
			continue
		}
		handlers.Add(1)
		go func() {
			defer handlers.Done()
			s.answer(c, req)
		}()
	}
}

func (s *WebServer) answer(c *websocket.Conn, req webrcon.Request) {
	if s.opts.Noise {
		noise := []webrcon.Frame{
			{Message: `{"Channel":0,"Message":"hello","Username":"player"}`, Identifier: -1, Type: webrcon.TypeChat},
			{Message: "Saving 1234 entities", Identifier: 0, Type: webrcon.TypeGeneric},
			{Message: webrcon.EchoPrefix + "127.0.0.1:50000: " + req.Message, Identifier: req.Identifier, Type: webrcon.TypeGeneric},
		}
		for _, f := range noise {
			if writeFrame(c, f) != nil {
				return
			}
		}
	}
	out := ""
	if s.opts.Handler != nil {
		out = s.opts.Handler(req.Message)
	}
	_ = writeFrame(c, webrcon.Frame{Message: out, Identifier: req.Identifier, Type: webrcon.TypeGeneric})
}

func writeFrame(c *websocket.Conn, f webrcon.Frame) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, b)
}
