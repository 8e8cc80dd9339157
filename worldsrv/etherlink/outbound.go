package etherlink

import (
	"fmt"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
)

// outQueue is the outbound queue: frames encoded by Send, waiting for the
// writer. It is one byte buffer of whole frames that the writer swaps for
// its spare (double buffering): Send appends under the lock and never
// allocates once the buffers have grown, and the writer sends everything
// queued since its last write in one Write, flushing as soon as the queue
// is empty, so frames are batched exactly while the link is busy.
//
// Drop policy: when the queue holds OutFrames frames or OutBytes bytes, the
// NEW message is dropped (Send returns false) and counted in Dropped.Full.
// Newest-dropped is right here because the caller learns of the drop at
// once and can act on it (a login whose LoginCheck was not queued is
// answered "login server offline" instead of waiting), while the frames
// already queued keep their order: ether's frames depend on each other
// (PlayerLogin before RequestLists, FriendAdd before a PM), and dropping an
// old one the engine believes sent would break that silently. At most
// OutFrames frames wait, plus the batch the writer is writing.
type outQueue struct {
	buf    []byte // guarded by Client.mu; whole encoded frames, oldest first
	frames int    // guarded by Client.mu; frames in buf
	flight int    // guarded by Client.mu; frames in the batch being written
}

// Send queues m for the sidecar and reports whether it was queued. It never
// blocks: it returns false, counting why, when the link is down
// (Dropped.Down), the queue is full (Dropped.Full) or m does not fit in a
// frame (Dropped.TooLarge). m is encoded before Send returns, so the caller
// may reuse its buffers at once.
func (c *Client) Send(m proto.Message) bool {
	c.mu.Lock()
	q := &c.out
	switch {
	case !c.up:
		c.mu.Unlock()
		c.stats.droppedDown.Add(1)
		return false
	case q.frames >= c.cfg.OutFrames:
		c.mu.Unlock()
		c.stats.droppedFull.Add(1)
		return false
	}
	start := len(q.buf)
	buf, err := proto.AppendFrame(q.buf, m)
	if err != nil {
		q.buf = buf
		c.mu.Unlock()
		c.stats.droppedTooLarge.Add(1)
		c.badSend.log(c.log, "drop an outbound message that fits in no frame", "op", m.Op(), "err", err)
		return false
	}
	if len(buf) > c.cfg.OutBytes && start > 0 {
		q.buf = buf[:start]
		c.mu.Unlock()
		c.stats.droppedFull.Add(1)
		return false
	}
	q.buf = buf
	q.frames++
	if m.Op() == proto.OpPlayerSaveRequest {
		c.stats.unacked.Add(1) // under mu: dropStaleLocked resets it with the queue
	}
	wake := c.wake
	c.mu.Unlock()
	select {
	case wake <- struct{}{}:
	default: // the writer is already awake
	}
	return true
}

// dropStaleLocked drops every frame queued for a dead connection and
// returns how many it dropped.
func (c *Client) dropStaleLocked() int {
	n := c.out.frames
	c.out.buf = c.out.buf[:0]
	c.out.frames = 0
	c.stats.unacked.Store(0) // the old connection's saves will not be acknowledged
	c.stats.droppedStale.Add(uint64(n))
	return n
}

// writeLoop writes queued frames to cn until it fails or is told to stop.
// spare is the buffer it swaps into the queue. A write error ends the
// connection (cn.fail); the batch it was writing counts as stale.
func (c *Client) writeLoop(cn *conn, wake <-chan struct{}) {
	defer close(cn.writerDone)
	var spare []byte
	for {
		select {
		case <-cn.done:
			return
		case <-wake:
		}
		c.mu.Lock()
		batch, n := c.out.buf, c.out.frames
		c.out.buf, c.out.frames, c.out.flight = spare[:0], 0, n
		c.mu.Unlock()
		if n == 0 {
			spare = batch
			continue
		}
		_ = cn.nc.SetWriteDeadline(time.Now().Add(c.cfg.WriteTimeout))
		_, err := cn.nc.Write(batch)
		c.mu.Lock()
		c.out.flight = 0
		c.mu.Unlock()
		if err != nil {
			c.stats.droppedStale.Add(uint64(n))
			cn.fail(fmt.Errorf("write: %w", err))
			return
		}
		c.stats.sent.Add(uint64(n))
		spare = batch
	}
}
