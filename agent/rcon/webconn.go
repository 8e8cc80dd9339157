package rcon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"

	"github.com/corrosion/corrosion/internal/webrcon"
)

// webResult is a reply handed from the reader to the waiting Exec.
type webResult struct {
	out string
	err error
}

// webConn is one WebRCON connection and its reader goroutine.
type webConn struct {
	ws       *websocket.Conn // immutable; Write is safe for concurrent use
	nc       net.Conn        // immutable; the TCP connection under ws, only peeked at
	bcast    *broadcaster    // immutable; may be nil
	log      *slog.Logger    // immutable
	gotFrame atomic.Bool     // the server has sent at least one frame
	shutting atomic.Bool     // we are closing the connection
	done     chan struct{}   // closed when the reader has stopped

	mu      sync.Mutex
	pending map[int32]chan webResult // guarded by mu; nil once the reader stopped
	err     error                    // guarded by mu; why the reader stopped
}

func newWebConn(ws *websocket.Conn, nc net.Conn, bcast *broadcaster, log *slog.Logger) *webConn {
	return &webConn{ws: ws, nc: nc, bcast: bcast, log: log, done: make(chan struct{}),
		pending: make(map[int32]chan webResult)}
}

func (w *webConn) isDone() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// shut closes the connection from our side.
func (w *webConn) shut() {
	w.shutting.Store(true)
	_ = w.ws.CloseNow()
}

// failure is the reader's error; call only after done is closed.
func (w *webConn) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// roundTrip sends one command and waits for the frame carrying id. sent
// reports whether the request may have reached the server.
func (w *webConn) roundTrip(ctx context.Context, id int32, command string) (out string, sent bool, err error) {
	ch := make(chan webResult, 1)
	w.mu.Lock()
	if w.pending == nil {
		err := w.err
		w.mu.Unlock()
		return "", false, err
	}
	w.pending[id] = ch
	w.mu.Unlock()
	defer w.unregister(id)

	req, _ := json.Marshal(webrcon.Request{Identifier: int64(id), Message: command, Name: webrconName}) // cannot fail
	if err := w.ws.Write(ctx, websocket.MessageText, req); err != nil {
		return "", true, w.writeFailed(ctx, err)
	}
	select {
	case r := <-ch:
		return r.out, true, r.err
	case <-w.done:
		select { // a reply that raced the reader's end still counts
		case r := <-ch:
			return r.out, true, r.err
		default:
			return "", true, w.failure()
		}
	case <-ctx.Done():
		return "", true, classify(ctx, "webrcon wait for reply", ctx.Err())
	}
}

// writeFailed explains a failed write. A failed write ends the connection;
// the reader's account of why (a close before any frame is a rejected
// password) is the better error. Closing here (not as shut does) makes it
// come at once.
func (w *webConn) writeFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return classify(ctx, "webrcon send", err)
	}
	_ = w.ws.CloseNow()
	select {
	case <-w.done:
		return w.failure()
	case <-ctx.Done():
		return classify(ctx, "webrcon send", err)
	}
}

func (w *webConn) unregister(id int32) {
	w.mu.Lock()
	delete(w.pending, id)
	w.mu.Unlock()
}

// readLoop reads frames until the connection ends, handing each reply to
// its waiter and everything else to the broadcaster.
func (w *webConn) readLoop() {
	var err error
	defer func() { w.finish(err) }()
	for {
		_, data, rerr := w.ws.Read(context.Background())
		if rerr != nil {
			err = w.readError(rerr)
			return
		}
		w.gotFrame.Store(true)
		f, derr := decodeFrame(data)
		if derr != nil {
			w.log.Debug("dropping undecodable webrcon frame", "bytes", len(data))
			continue
		}
		if !w.deliver(f) {
			w.bcast.send(f.Message)
		}
	}
}

// deliver hands f to the Exec waiting for its identifier, if any.
func (w *webConn) deliver(f webrcon.Frame) bool {
	if f.Identifier <= firstIdentifier || f.Identifier > math.MaxInt32 {
		return false
	}
	id := int32(f.Identifier)
	if !f.IsReplyTo(int64(id)) {
		return false
	}
	w.mu.Lock()
	ch, ok := w.pending[id]
	delete(w.pending, id)
	w.mu.Unlock()
	if !ok {
		return false
	}
	r := webResult{out: f.Message}
	if len(f.Message) > MaxResponseBytes {
		r = webResult{err: fmt.Errorf("webrcon read reply: %w: %d bytes, limit %d", ErrTooLarge, len(f.Message), MaxResponseBytes)}
	}
	ch <- r // buffered, one send per id
	return true
}

// readError classifies why the reader stopped. A server that closes the
// connection before sending a single frame is taken to have refused the
// password: Rust accepts the WebSocket and closes it at once on a bad one.
// (coder/websocket reports a received close frame as net.ErrClosed, like
// our own close, hence the shutting flag.)
func (w *webConn) readError(err error) error {
	peerClosed := websocket.CloseStatus(err) != -1 || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	switch {
	case w.shutting.Load():
		return fmt.Errorf("webrcon read: %w: connection closed", ErrDisconnected)
	case errors.Is(err, websocket.ErrMessageTooBig):
		return fmt.Errorf("webrcon read: %w: frame over %d bytes", ErrTooLarge, maxFrameBytes)
	case peerClosed && !w.gotFrame.Load():
		return fmt.Errorf("webrcon: %w: server closed the connection before answering (wrong password?)", ErrAuth)
	case peerClosed:
		return fmt.Errorf("webrcon read: %w: server closed the connection", ErrDisconnected)
	}
	return classify(context.Background(), "webrcon read", err)
}

// finish records why the reader stopped and wakes every waiter.
func (w *webConn) finish(err error) {
	w.mu.Lock()
	w.err = err
	w.pending = nil
	w.mu.Unlock()
	_ = w.ws.CloseNow()
	close(w.done)
}
