package link

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/poll"
)

// slowDown is a Handler whose first WorldDown blocks until release is
// closed, recording what the link reports meanwhile.
type slowDown struct {
	entered chan struct{} // closed when the first WorldDown begins
	release chan struct{} // closed by the test to let it return

	mu     sync.Mutex
	events []string // guarded by mu
	downs  int      // guarded by mu
}

func (h *slowDown) HandleFrame(m proto.Message) { h.event("frame " + m.Op().String()) }
func (h *slowDown) WorldUp()                    { h.event("up") }
func (h *slowDown) WorldDown() {
	h.mu.Lock()
	h.downs++
	first := h.downs == 1
	h.events = append(h.events, "down")
	h.mu.Unlock()
	if first {
		close(h.entered)
		<-h.release
	}
	h.event("down returned")
}

func (h *slowDown) event(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, s)
}

func (h *slowDown) get() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
}

// attachWaits reports whether a goroutine waits for a mutex inside
// (*Server).attach (a reconnect queued behind a WorldDown being reported).
func attachWaits() bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "[sync.Mutex.Lock") && strings.Contains(g, "link.(*Server).attach(") {
			return true
		}
	}
	return false
}

// A world that reconnects while the loss of its old connection is still
// being reported: the handler must see that WorldDown return before the
// new connection's WorldUp and frames. The old connection's read loop used
// to let go of the link before reporting WorldDown, so a reconnect in
// between was reported up, and its PlayerResync handled, before the old
// WorldDown, which then orphaned the sessions just resynced (ether's
// flaky TestWorldLinkDropped_ResyncRestoresListsAndUnsyncedSessionsEnd).
func TestServer_Reconnect_OldWorldDownReportedBeforeNewWorldUp(t *testing.T) {
	h := &slowDown{entered: make(chan struct{}), release: make(chan struct{})}
	s, err := New(Config{Addr: "127.0.0.1:0"}, h, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	released := sync.OnceFunc(func() { close(h.release) })
	t.Cleanup(func() { released(); cancel(); <-done })

	first := dial(t, s)
	poll.True(t, 5*time.Second, "first connection up", s.Up)
	first.Close()
	select {
	case <-h.entered:
	case <-time.After(5 * time.Second):
		t.Fatal("closing the first connection reported no WorldDown")
	}
	second := dial(t, s)
	if _, err := second.Write(frames(t, proto.PlayerResync{User37: 7, PID: 1})); err != nil {
		t.Fatal(err)
	}
	// Either the reconnect is reported while WorldDown has not returned
	// (the bug), or its attach waits for it.
	poll.Until(t, 5*time.Second, func() error {
		ups := 0
		for _, e := range h.get() {
			if e == "up" {
				ups++
			}
		}
		if ups == 2 || attachWaits() {
			return nil
		}
		return errors.New("the reconnect is neither reported nor waiting")
	})
	released()
	want := []string{"up", "down", "down returned", "up", "frame PlayerResync"}
	poll.Until(t, 5*time.Second, func() error {
		if got := h.get(); !slices.Equal(got, want) {
			return errors.New(strings.Join(got, ", ") + "; want " + strings.Join(want, ", "))
		}
		return nil
	})
}
