package etherlink

import (
	"context"
	"fmt"
	"math"
)

// Flush waits until the sidecar has acknowledged (PlayerSaveAck) every
// PlayerSaveRequest sent on the current connection: bytes written to the
// socket are not yet stored, and stopping the sidecar before it has read
// them loses them. It is for shutdown, after the engine's last tick: it
// drains the inbound queues itself and discards what it drains (the engine,
// which would drain them, has stopped), so the reader never waits for room.
// It returns nil once every save is acknowledged; an error saying how many
// are not when the link goes down or ctx ends first. It never polls: the
// reader wakes it on each acknowledgement, when a queue is full and on the
// loss of the link.
func (c *Client) Flush(ctx context.Context) error {
	for {
		c.Drain(math.MaxInt, func(Event) {})
		n := c.stats.unacked.Load()
		if n <= 0 {
			return nil
		}
		if !c.Up() {
			return fmt.Errorf("etherlink: link down with %d saves unacknowledged", n)
		}
		select {
		case <-c.acked:
		case <-ctx.Done():
			return fmt.Errorf("etherlink: %d saves unacknowledged: %w", n, ctx.Err())
		}
	}
}

// tellFlush wakes a Flush: a save was acknowledged, a queue is full, or the
// link went down.
func (c *Client) tellFlush() {
	select {
	case c.acked <- struct{}{}:
	default: // a wake-up is pending already
	}
}
