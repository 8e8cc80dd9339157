package supervise

import (
	"fmt"
	"sync"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// ConsoleLimits bound what the console pipeline keeps and forwards.
type ConsoleLimits struct {
	LineLimit   int           // lines forwarded per Window (Wings: 2000 per 100 ms)
	Window      time.Duration // throttle window
	RingLines   int           // backlog kept for `logs`
	MaxLogBytes int64         // a log file is truncated after it grows past this
}

func (l ConsoleLimits) withDefaults() ConsoleLimits {
	if l.LineLimit <= 0 {
		l.LineLimit = 2000
	}
	if l.Window <= 0 {
		l.Window = 100 * time.Millisecond
	}
	if l.RingLines <= 0 {
		l.RingLines = 1000
	}
	if l.MaxLogBytes <= 0 {
		l.MaxLogBytes = 16 << 20
	}
	return l
}

// console throttles, keeps and forwards the output of one instance. Drop
// policy: within a window, lines past LineLimit are dropped (not queued),
// with one agent notice per throttling episode; the child is never slowed,
// because it writes to files, not to us.
//
// Lock order, for the whole package and its Sink (written here only):
//
//	Supervisor.mu → console.mu → whatever the Sink takes
//
// A supervisor holds its mu while it reports a state and while it writes a
// notice, so a notice and the state change it explains reach the Sink in
// that order. The console holds its mu while it appends to the ring and
// calls Sink.Console, so the backlog (logs) and the live console agree on
// the order of stdout, stderr, notices and injected lines. Hence: never
// take Supervisor.mu while holding console.mu, and a Sink takes no
// supervise lock (it must not call back). The agent's publisher takes no
// lock of its own; innermost is the NATS client's, inside Publish.
type console struct {
	id   string        // immutable
	sink Sink          // immutable
	lim  ConsoleLimits // immutable

	mu          sync.Mutex         // after Supervisor.mu, before the Sink's locks (see above)
	ring        []wire.ConsoleLine // guarded by mu; circular, len ≤ lim.RingLines
	next        int                // guarded by mu; ring write position once full
	windowStart time.Time          // guarded by mu
	windowCount int                // guarded by mu
	throttled   bool               // guarded by mu; inside a throttling episode
	dropped     int64              // guarded by mu; total lines dropped
	skippedB    int64              // guarded by mu; bytes skipped unread during floods
}

func newConsole(id string, sink Sink, lim ConsoleLimits) *console {
	return &console{id: id, sink: sink, lim: lim.withDefaults()}
}

// deliver forwards lines of one stream, applying the throttle. Lines the
// throttle drops are never copied: dropping is cheap.
func deliver[T ~string | ~[]byte](c *console, stream string, lines []T, now time.Time) {
	if len(lines) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n, notice := c.admitLocked(len(lines), now)
	out := make([]wire.ConsoleLine, 0, n+1)
	for _, l := range lines[:n] {
		out = append(out, wire.ConsoleLine{Stream: stream, Text: string(l)})
	}
	if notice {
		out = append(out, wire.ConsoleLine{Stream: wire.StreamAgent, Text: fmt.Sprintf(
			"console output throttled: more than %d lines per %v; excess lines are dropped until the output calms down",
			c.lim.LineLimit, c.lim.Window)})
	}
	c.publishLocked(out)
}

// admitLocked counts n new lines against the window and returns how many
// may pass, and whether a throttling episode has just begun.
func (c *console) admitLocked(n int, now time.Time) (admit int, notice bool) {
	if now.Sub(c.windowStart) >= c.lim.Window {
		if c.throttled && c.windowCount <= c.lim.LineLimit {
			c.throttled = false // a calm window ends the episode
		}
		c.windowStart, c.windowCount = now, 0
	}
	room := max(c.lim.LineLimit-c.windowCount, 0)
	c.windowCount += n
	if room >= n {
		return n, false
	}
	c.dropped += int64(n - room)
	notice = !c.throttled
	c.throttled = true
	return room, notice
}

// notice forwards an agent line; notices are never throttled.
func (c *console) notice(format string, a ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.publishLocked([]wire.ConsoleLine{{Stream: wire.StreamAgent, Text: fmt.Sprintf(format, a...)}})
}

func (c *console) publishLocked(lines []wire.ConsoleLine) {
	if len(lines) == 0 {
		return
	}
	for _, l := range lines {
		if len(c.ring) < c.lim.RingLines {
			c.ring = append(c.ring, l)
			continue
		}
		c.ring[c.next] = l
		c.next = (c.next + 1) % len(c.ring)
	}
	c.sink.Console(c.id, lines)
}

// last returns up to n of the most recent lines, oldest first.
func (c *console) last(n int) []wire.ConsoleLine {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := len(c.ring)
	if n <= 0 || n > total {
		n = total
	}
	out := make([]wire.ConsoleLine, 0, n)
	for i := total - n; i < total; i++ {
		out = append(out, c.ring[(c.next+i)%total])
	}
	return out
}

// hasRoom reports whether the current throttle window still admits lines.
func (c *console) hasRoom(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return now.Sub(c.windowStart) >= c.lim.Window || c.windowCount < c.lim.LineLimit
}

// skipped counts output passed over unread because the throttle would have
// dropped it.
func (c *console) skipped(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.skippedB += n
}

// SkippedBytes is the output passed over unread during floods.
func (c *console) SkippedBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skippedB
}

// Dropped is the number of lines the throttle dropped so far.
func (c *console) Dropped() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}
