package console

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
)

// Bounds of one watcher's buffer: lines the hub has received for a stream
// and the stream has not written yet.
const (
	MaxBufferedLines = 5000
	MaxBufferedBytes = 2 << 20
)

// Hub fans an instance's console out to the browsers watching it, on this
// panel replica. It subscribes to {license}.{instance}.console only while
// at least one watcher is open for that instance (reference-counted: the
// first Watch subscribes, the last Close unsubscribes).
//
// Drop policy: each watcher has a bounded buffer (MaxBufferedLines,
// MaxBufferedBytes). The NATS callback appends to every watcher's buffer
// and never waits for a stream; when a buffer is full the OLDEST buffered
// lines are dropped and counted, so a slow browser jumps ahead to the live
// edge and its stream says "N lines dropped" where the gap is. Other
// watchers and the NATS callback are never held up by it.
//
// Lock order: Hub.mu, then Watcher.mu.
type Hub struct {
	nc  *nats.Conn   // immutable after NewHub
	log *slog.Logger // immutable after NewHub

	mu     sync.RWMutex
	topics map[topicKey]*topic // guarded by mu

	dropped   atomic.Int64 // lines dropped for slow watchers, all time
	malformed atomic.Int64 // console messages that were not JSON
}

type topicKey struct{ license, instance string }

// topic is one subscribed console and its watchers.
type topic struct {
	sub      *nats.Subscription    // immutable after creation
	watchers map[*Watcher]struct{} // guarded by Hub.mu
}

// NewHub returns a hub on the connection.
func NewHub(nc *nats.Conn, log *slog.Logger) *Hub {
	if log == nil {
		log = slog.Default()
	}
	return &Hub{nc: nc, log: log.With("component", "console"), topics: map[topicKey]*topic{}}
}

// Watch opens a watcher of an instance's console, subscribing to it when
// it is the first. When Watch returns, the subscription has been
// confirmed by the server (a backlog asked for afterwards overlaps the
// live lines rather than missing some), unless the connection is down:
// then the client registers it on reconnect. Close the watcher when the
// stream ends.
func (h *Hub) Watch(license, instance string) (*Watcher, error) {
	key := topicKey{license, instance}
	w := &Watcher{hub: h, key: key, ready: make(chan struct{}, 1)}
	h.mu.Lock()
	t := h.topics[key]
	if t == nil {
		sub, err := h.nc.Subscribe(wire.ConsoleSubject(license, instance), h.deliverFunc(key))
		if err != nil {
			h.mu.Unlock()
			return nil, fmt.Errorf("subscribe to the console of %s/%s: %w", license, instance, err)
		}
		t = &topic{sub: sub, watchers: map[*Watcher]struct{}{}}
		h.topics[key] = t
	}
	t.watchers[w] = struct{}{}
	h.mu.Unlock()
	// Outside the lock: a slow or broken connection must not hold up the
	// other consoles' callbacks.
	if err := h.nc.FlushTimeout(flushTimeout); err != nil {
		h.log.Debug("console subscription not confirmed; the client registers it on reconnect",
			"license", license, "instance", instance, "err", err)
	}
	return w, nil
}

// flushTimeout bounds the wait for the server to confirm a subscription.
const flushTimeout = 2 * time.Second

// Subscriptions is how many instance consoles this hub is subscribed to.
func (h *Hub) Subscriptions() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.topics)
}

// Watchers is how many watchers are open over all instances.
func (h *Hub) Watchers() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	for _, t := range h.topics {
		n += len(t.watchers)
	}
	return n
}

// Dropped is how many lines were dropped for slow watchers since NewHub.
func (h *Hub) Dropped() int64 { return h.dropped.Load() }

func (h *Hub) deliverFunc(key topicKey) nats.MsgHandler {
	return func(m *nats.Msg) {
		var cm wire.ConsoleMessage
		if err := json.Unmarshal(m.Data, &cm); err != nil {
			if h.malformed.Add(1) == 1 {
				h.log.Warn("console message is not JSON; ignoring it (logged once)", "subject", m.Subject, "err", err)
			}
			return
		}
		if len(cm.Lines) == 0 {
			return
		}
		h.mu.RLock()
		defer h.mu.RUnlock()
		t := h.topics[key]
		if t == nil {
			return
		}
		for w := range t.watchers {
			if n := w.push(cm.Lines); n > 0 {
				h.dropped.Add(n)
			}
		}
	}
}

// release removes a watcher, unsubscribing when it was the last.
func (h *Hub) release(w *Watcher) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[w.key]
	if t == nil {
		return
	}
	delete(t.watchers, w)
	if len(t.watchers) > 0 {
		return
	}
	delete(h.topics, w.key)
	if err := t.sub.Unsubscribe(); err != nil && h.nc.IsConnected() {
		h.log.Warn("unsubscribe from a console failed", "license", w.key.license, "instance", w.key.instance, "err", err)
	}
}

// Watcher is one stream's view of an instance's console: a bounded buffer
// the hub fills and the stream drains.
type Watcher struct {
	hub   *Hub          // immutable
	key   topicKey      // immutable
	ready chan struct{} // capacity 1: signalled when lines are buffered

	mu      sync.Mutex
	lines   []wire.ConsoleLine // guarded by mu; oldest first
	bytes   int                // guarded by mu: text bytes in lines
	dropped int64              // guarded by mu: lines dropped since the last Take

	closeOnce sync.Once
}

// Ready is signalled when lines have been buffered since the last Take.
func (w *Watcher) Ready() <-chan struct{} { return w.ready }

// Take returns the buffered lines (oldest first) and how many lines were
// dropped before them since the previous Take, and empties the buffer.
func (w *Watcher) Take() (lines []wire.ConsoleLine, dropped int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	lines, dropped = w.lines, w.dropped
	w.lines, w.bytes, w.dropped = nil, 0, 0
	return lines, dropped
}

// Close ends the watcher; the hub unsubscribes when it was the last of its
// instance. Close is idempotent.
func (w *Watcher) Close() { w.closeOnce.Do(func() { w.hub.release(w) }) }

// push buffers lines, dropping the oldest beyond the bounds; it returns
// how many lines it dropped. It never blocks on the stream.
func (w *Watcher) push(lines []wire.ConsoleLine) int64 {
	w.mu.Lock()
	w.lines = append(w.lines, lines...)
	for _, l := range lines {
		w.bytes += len(l.Text)
	}
	n := w.trimLocked()
	w.mu.Unlock()
	select {
	case w.ready <- struct{}{}:
	default:
	}
	return n
}

// trimLocked drops the oldest lines while the buffer is over its bounds
// (always keeping the newest line) and counts them.
func (w *Watcher) trimLocked() int64 {
	drop := 0
	for len(w.lines)-drop > 1 && (len(w.lines)-drop > MaxBufferedLines || w.bytes > MaxBufferedBytes) {
		w.bytes -= len(w.lines[drop].Text)
		drop++
	}
	if drop == 0 {
		return 0
	}
	clear(w.lines[:drop]) // let the dropped strings go
	w.lines = w.lines[drop:]
	w.dropped += int64(drop)
	return int64(drop)
}
