package rcon

import (
	"log/slog"
	"sync/atomic"
	"testing"
	"time"
)

// TestBroadcaster_DropsWhenConsumerBlocks: a stuck callback never blocks
// the sender; frames past the bound are dropped; nothing is delivered
// after stop.
func TestBroadcaster_DropsWhenConsumerBlocks(t *testing.T) {
	cases := []struct {
		name   string
		frames int
		size   int
	}{
		{"frame bound", 3 * maxQueued, 10},
		{"byte bound", 64, maxQueuedBytes / 16},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			unblock := make(chan struct{})
			var calls atomic.Int64
			b := newBroadcaster(func(string) {
				calls.Add(1)
				<-unblock
			}, slog.New(slog.DiscardHandler))
			text := string(make([]byte, tc.size))
			done := make(chan struct{})
			go func() {
				for range tc.frames {
					b.send(text)
				}
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("send blocked on a stuck consumer")
			}
			if b.dropped.Load() == 0 || b.bytes.Load() > maxQueuedBytes {
				t.Fatalf("dropped %d, queued %d bytes: want drops and at most %d bytes", b.dropped.Load(), b.bytes.Load(), maxQueuedBytes)
			}
			b.stop()
			close(unblock)
			before := calls.Load()
			b.send("after stop")
			if calls.Load() > before+1 {
				t.Fatalf("callback ran %d times after stop", calls.Load()-before)
			}
		})
	}
}
