package livestate

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/web/ui"
)

// Subscription is what one open page listens to.
type Subscription struct {
	View     View
	License  string // ViewHost and ViewInstance: the host's license
	Instance string // ViewInstance: the instance
	// Since is when the page was rendered: changes the Model saw after it
	// (minus SnapshotMargin) are sent at once, so that nothing between the
	// render and the stream's start is missed. Zero: nothing is sent.
	Since time.Time
}

// SnapshotMargin widens Subscription.Since: the page was rendered from the
// store, and what ingest committed reaches the Model a little later (over
// NATS, from whichever replica committed it): a change the page may lack
// is sent again rather than missed.
const SnapshotMargin = 3 * time.Second

// Snapshotter is implemented by a Model that can render the current state
// of what a new stream shows, for changes after since.
type Snapshotter interface {
	Snapshot(ctx context.Context, sub Subscription, since time.Time) []Fragment
}

// stream is one open SSE response.
type stream struct {
	p   *auth.Principal // immutable after open
	sub Subscription    // immutable after open
	ch  chan []byte     // encoded SSE events; nil entry: refetch
	// dropped is set when a fragment did not fit in ch: the writer sends
	// refetch instead of what is left.
	dropped chan struct{} // capacity 1; a value means "dropped"
}

func (s *stream) wants(f *Fragment) bool {
	if f.Views&s.sub.View == 0 || !s.p.CanView(f.License) {
		return false
	}
	switch f.Audience {
	case Actors:
		if !s.p.CanAct(f.License) {
			return false
		}
	case NonActors:
		if s.p.CanAct(f.License) {
			return false
		}
	}
	if s.sub.View == ViewFleet {
		return true
	}
	if f.License != s.sub.License {
		return false
	}
	return s.sub.View != ViewInstance || f.Instance == "" || f.Instance == s.sub.Instance
}

// offer queues an event without blocking; a full buffer marks the stream
// as having dropped.
func (s *stream) offer(b []byte) bool {
	select {
	case s.ch <- b:
		return true
	default:
		select {
		case s.dropped <- struct{}{}:
		default:
		}
		return false
	}
}

func (h *Hub) wanted() View {
	h.mu.Lock()
	defer h.mu.Unlock()
	var v View
	for i, n := range h.views {
		if n > 0 {
			v |= 1 << i
		}
	}
	return v
}

func viewIndex(v View) int {
	switch v {
	case ViewHost:
		return 1
	case ViewInstance:
		return 2
	default:
		return 0
	}
}

// fanout sends each fragment to the streams that want it (and may see it).
func (h *Hub) fanout(frags []Fragment) {
	if len(frags) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range frags {
		f := &frags[i]
		var enc []byte
		for s := range h.streams {
			if !s.wants(f) {
				continue
			}
			if enc == nil {
				enc = encodeEvent(f.Name, f.HTML)
			}
			if s.offer(enc) {
				h.metrics.sent.Inc()
			} else {
				h.metrics.dropped.Inc()
			}
		}
	}
}

// refetchAll tells every stream to refetch (a queued message was lost).
func (h *Hub) refetchAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.streams {
		s.offer(nil)
	}
}

// Serve streams the subscription's fragments to the browser as
// Server-Sent Events until the request ends. It checks the license grant
// itself as well (the route's pattern does too); every fragment is checked
// against the principal before it is queued for the stream.
func (h *Hub) Serve(w http.ResponseWriter, r *http.Request, p *auth.Principal, sub Subscription) error {
	if p == nil || (sub.View != ViewFleet && !p.CanView(sub.License)) {
		return httpx.Denied
	}
	rc := http.NewResponseController(w)
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return fmt.Errorf("live stream: flush: %w", err)
	}
	s := &stream{p: p, sub: sub, ch: make(chan []byte, h.cfg.Buffer), dropped: make(chan struct{}, 1)}
	if r.Header.Get("Last-Event-ID") != "" {
		s.offer(nil) // a reconnect: whatever happened in between is unknown
	}
	h.open(r.Context(), s)
	defer h.close(s)
	return h.write(r.Context(), w, rc, s)
}

func (h *Hub) open(ctx context.Context, s *stream) {
	h.metrics.streams.Inc()
	if s.sub.Since.IsZero() || !h.running.Load() {
		h.register(s)
		return
	}
	// On the hub's goroutine: the snapshot and the registration happen
	// between two events, so the stream misses none.
	done := make(chan struct{})
	select {
	case h.joins <- join{s: s, done: done}:
		select {
		case <-done:
		case <-ctx.Done():
		}
	case <-ctx.Done():
	}
}

func (h *Hub) register(s *stream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.streams[s] = struct{}{}
	h.views[viewIndex(s.sub.View)]++
}

func (h *Hub) close(s *stream) {
	h.metrics.streams.Dec()
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.streams[s]; ok {
		delete(h.streams, s)
		h.views[viewIndex(s.sub.View)]--
	}
}

// join is a stream waiting to be registered by the hub's goroutine.
type join struct {
	s    *stream
	done chan struct{}
}

func (h *Hub) handleJoin(ctx context.Context, j join) {
	defer close(j.done)
	if sn, ok := h.model.(Snapshotter); ok {
		for _, f := range sn.Snapshot(ctx, j.s.sub, j.s.sub.Since.Add(-SnapshotMargin)) {
			if j.s.wants(&f) {
				j.s.offer(encodeEvent(f.Name, f.HTML))
			}
		}
	}
	h.register(j.s)
}

// write is the stream's writer loop: events as they come, a refetch
// instead of what was dropped, a keep-alive comment when idle.
func (h *Hub) write(ctx context.Context, w http.ResponseWriter, rc *http.ResponseController, s *stream) error {
	keep := time.NewTicker(h.cfg.KeepAlive)
	defer keep.Stop()
	var id uint64
	for {
		var b []byte
		select {
		case <-ctx.Done():
			return nil
		case <-keep.C:
			b = []byte(": keep-alive\n\n")
		case <-s.dropped:
			b = h.drain(s)
		case b = <-s.ch:
			if b == nil {
				b = h.drain(s)
			}
		}
		if b[0] != ':' {
			id++
			b = append([]byte("id: "+strconv.FormatUint(id, 10)+"\n"), b...)
		}
		if _, err := w.Write(b); err != nil {
			return nil // the browser went away
		}
		if err := rc.Flush(); err != nil {
			return nil
		}
	}
}

// drain discards what the stream holds and returns the refetch event.
func (h *Hub) drain(s *stream) []byte {
	h.metrics.refetches.Inc()
	for {
		select {
		case <-s.ch:
		case <-s.dropped:
		default:
			return encodeEvent(ui.EventRefetch, []byte("refetch"))
		}
	}
}

// encodeEvent renders one SSE event; every line of data gets its prefix.
func encodeEvent(name string, data []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(name) + len(data) + 32)
	b.WriteString("event: ")
	b.WriteString(name)
	b.WriteByte('\n')
	for _, line := range bytes.Split(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(bytes.TrimSuffix(line, []byte("\r")))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}
