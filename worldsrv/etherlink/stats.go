package etherlink

import "sync/atomic"

// Stats is a snapshot of the link for /status and /metrics: totals since
// New and the queues' depths now.
type Stats struct {
	Up         bool
	Sent       uint64 // frames written to the sidecar (handshakes not counted)
	Dropped    Drops  // outbound messages not delivered, by cause
	Received   uint64 // frames from the sidecar queued as events
	Malformed  uint64 // frames from the sidecar that did not decode (dropped; the connection kept)
	Unacked    int64  // saves (PlayerSaveRequest) sent on this connection and not yet acknowledged
	Connects   uint64 // connections established (handshake written)
	Reconnects uint64 // connections after the first
	OutQueue   int    // outbound frames waiting or being written
	InQueue    int    // events waiting for Drain (both queues)
}

// Drops counts outbound messages dropped, by cause.
type Drops struct {
	Full     uint64 // Send while the queue was full (the new message dropped)
	Down     uint64 // Send while the link was down
	Stale    uint64 // queued or being written when the connection died
	TooLarge uint64 // a message larger than a frame
}

// Total is the sum of every cause.
func (d Drops) Total() uint64 { return d.Full + d.Down + d.Stale + d.TooLarge }

// counters are the totals behind Stats.
type counters struct {
	sent, received, malformed, connects                     atomic.Uint64
	unacked                                                 atomic.Int64 // saves sent on this connection, not yet acknowledged
	droppedFull, droppedDown, droppedStale, droppedTooLarge atomic.Uint64
}

// Stats returns the link's snapshot.
func (c *Client) Stats() Stats {
	c.mu.Lock()
	up, out := c.up, c.out.frames+c.out.flight
	c.mu.Unlock()
	s := &c.stats
	st := Stats{
		Up: up, Sent: s.sent.Load(), Received: s.received.Load(), Malformed: s.malformed.Load(), Unacked: s.unacked.Load(),
		Connects: s.connects.Load(), OutQueue: out, InQueue: c.queued(),
		Dropped: Drops{Full: s.droppedFull.Load(), Down: s.droppedDown.Load(),
			Stale: s.droppedStale.Load(), TooLarge: s.droppedTooLarge.Load()},
	}
	if st.Connects > 0 {
		st.Reconnects = st.Connects - 1
	}
	return st
}
