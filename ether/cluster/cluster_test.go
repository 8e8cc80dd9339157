package cluster

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/privacy"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

// table is a Handler backed by a map of presences: enough of a node's
// sessions to exercise the cluster layer on its own.
type table struct {
	mu       sync.Mutex
	sessions map[uint64]Presence // guarded by mu
	applied  []Presence          // guarded by mu
	only     []uint64            // guarded by mu; ApplyPresence's only, per applied batch
	events   []string            // guarded by mu; "up 11", "down 11"
	pms      []PM                // guarded by mu
}

func newTable() *table { return &table{sessions: map[uint64]Presence{}} }

func (t *table) add(p Presence) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sessions[p.User] = p
}

func (t *table) PresenceFor(user, asker uint64) (uint8, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.sessions[user]
	return p.VisibleNode(asker), ok
}

func (t *table) HasSession(user uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.sessions[user]
	return ok
}

func (t *table) DeliverPM(target uint64, pm PM) PMResult {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.sessions[target]
	switch {
	case !ok:
		return PMOffline
	case p.Mode == privacy.Off:
		return PMPrivateOff
	}
	pm.Body = bytes.Clone(pm.Body)
	t.pms = append(t.pms, pm)
	return PMDelivered
}

func (t *table) ApplyPresence(ps []Presence, only uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.applied = append(t.applied, ps...)
	t.only = append(t.only, only)
}

func (t *table) NodeDown(n uint8) { t.event(fmt.Sprintf("down %d", n)) }
func (t *table) NodeUp(n uint8)   { t.event(fmt.Sprintf("up %d", n)) }
func (t *table) event(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, s)
}

func (t *table) snapshot() (applied []Presence, events []string, pms []PM) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.applied), slices.Clone(t.events), slices.Clone(t.pms)
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

func fastConfig(url string, node uint8) Config {
	return Config{URLs: []string{url}, NodeID: node, LeaseTTL: time.Second,
		Heartbeat: 50 * time.Millisecond, NodeTimeout: 300 * time.Millisecond, RequestTimeout: time.Second}
}

// start runs a member until the test ends (or until the returned stop).
func start(t *testing.T, cfg Config) (*Member, *table, context.CancelFunc) {
	t.Helper()
	h := newTable()
	m, err := New(cfg, testLogger(t).With("node", cfg.NodeID))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(h); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = m.Run(ctx) }()
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return m, h, stop
}

func TestMember_LookupPingAndPM(t *testing.T) {
	ns := natstest.Start(t)
	a, ha, _ := start(t, fastConfig(ns.URL(), 10))
	b, _, _ := start(t, fastConfig(ns.URL(), 11))
	ha.add(Presence{User: 1, Node: 10, Mode: privacy.On})
	ha.add(Presence{User: 2, Node: 10, Mode: privacy.Friends, Friends: []uint64{77}})
	ha.add(Presence{User: 3, Node: 10, Mode: privacy.Off})
	for _, u := range []uint64{1, 2, 3} {
		if err := a.Join(u); err != nil {
			t.Fatal(err)
		}
	}
	_ = a.nc.Flush()
	ctx := context.Background()

	tests := []struct {
		name  string
		asker uint64
		want  []uint8 // for users 1, 2, 3, 4
	}{
		{"stranger", 55, []uint8{10, 0, 0, 0}},
		{"friend of the friends-only player", 77, []uint8{10, 10, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := make([]uint8, 4)
			if err := b.Lookup(ctx, tt.asker, []uint64{1, 2, 3, 4}, out); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(out, tt.want) {
				t.Fatalf("Lookup = %v, want %v", out, tt.want)
			}
		})
	}
	if on, err := b.Online(ctx, 3); err != nil || !on {
		t.Fatalf("Online(3) = %v, %v", on, err)
	}
	if on, err := b.Online(ctx, 4); err != nil || on {
		t.Fatalf("Online(4) = %v, %v", on, err)
	}
	pmTests := []struct {
		target uint64
		want   PMResult
	}{{1, PMDelivered}, {3, PMPrivateOff}, {4, PMOffline}}
	for _, tt := range pmTests {
		res, err := b.SendPM(ctx, tt.target, PM{Sender: 9, Level: 2, Body: []byte("hi")})
		if err != nil || res != tt.want {
			t.Errorf("SendPM to %d = %v, %v; want %v", tt.target, res, err, tt.want)
		}
	}
	a.Leave(1)
	_ = a.nc.Flush()
	if on, _ := b.Online(ctx, 1); on {
		t.Fatal("player 1 still online after Leave")
	}
}

func TestMember_BroadcastAndTargetedPresence(t *testing.T) {
	ns := natstest.Start(t)
	a, ha, _ := start(t, fastConfig(ns.URL(), 10))
	b, hb, _ := start(t, fastConfig(ns.URL(), 11))
	_, hc, _ := start(t, fastConfig(ns.URL(), 12))
	if err := b.Join(500); err != nil {
		t.Fatal(err)
	}
	_ = b.nc.Flush()
	p := Presence{User: 1, Node: 10, Mode: privacy.Friends, Friends: []uint64{500, 501}}
	if err := a.Broadcast(p); err != nil {
		t.Fatal(err)
	}
	if err := a.SendPresenceTo(500, Presence{User: 2, Node: 10}); err != nil {
		t.Fatal(err)
	}
	poll.True(t, 5*time.Second, "broadcast reaches both peers", func() bool {
		gb, _, _ := hb.snapshot()
		gc, _, _ := hc.snapshot()
		return len(gb) == 2 && len(gc) == 1
	})
	gc, _, _ := hc.snapshot()
	if gc[0].User != 1 || gc[0].Node != 10 || !slices.Equal(gc[0].Friends, p.Friends) {
		t.Fatalf("peer got %+v, want %+v", gc[0], p)
	}
	if ga, _, _ := ha.snapshot(); len(ga) != 0 {
		t.Fatalf("origin applied its own broadcast: %+v", ga)
	}
	hb.mu.Lock()
	only := slices.Clone(hb.only)
	hb.mu.Unlock()
	if !slices.Contains(only, 500) || !slices.Contains(only, 0) {
		t.Fatalf("targeted presence not marked for its player: only=%v", only)
	}
}

func TestMember_LoginLease(t *testing.T) {
	ns := natstest.Start(t)
	a, _, _ := start(t, fastConfig(ns.URL(), 10))
	b, _, _ := start(t, fastConfig(ns.URL(), 11))
	ctx := context.Background()
	steps := []struct {
		name string
		m    *Member
		do   func(*Member) (bool, error)
		want bool
	}{
		{"first take", a, func(m *Member) (bool, error) { return m.Acquire(ctx, 42) }, true},
		{"held elsewhere", b, func(m *Member) (bool, error) { return m.Acquire(ctx, 42) }, false},
		{"held by the same node", a, func(m *Member) (bool, error) { return m.Acquire(ctx, 42) }, false},
		{"release", a, func(m *Member) (bool, error) { return true, m.Release(ctx, 42) }, true},
		{"take after release", b, func(m *Member) (bool, error) { return m.Acquire(ctx, 42) }, true},
		{"release of a free lock", a, func(m *Member) (bool, error) { return true, m.Release(ctx, 43) }, true},
	}
	for _, s := range steps {
		got, err := s.do(s.m)
		if err != nil || got != s.want {
			t.Fatalf("%s: got %v, %v; want %v", s.name, got, err, s.want)
		}
	}
	// The lease taken above by b expires after LeaseTTL (1s).
	start := time.Now()
	poll.True(t, 5*time.Second, "lease expires", func() bool {
		ok, err := a.Acquire(ctx, 42)
		return err == nil && ok
	})
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("lease of 1s expired after %v", d)
	}
}

func TestMember_ConcurrentAcquireAcrossNodes_ExactlyOneWins(t *testing.T) {
	ns := natstest.Start(t)
	var ms []*Member
	for _, id := range []uint8{10, 11, 12} {
		m, _, _ := start(t, fastConfig(ns.URL(), id))
		ms = append(ms, m)
	}
	var won atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(m *Member) {
			defer wg.Done()
			ok, err := m.Acquire(context.Background(), 7)
			if err != nil {
				t.Error(err)
			}
			if ok {
				won.Add(1)
			}
		}(ms[i%3])
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Fatalf("%d acquisitions won, want exactly 1", won.Load())
	}
}

func TestMember_Liveness(t *testing.T) {
	ns := natstest.Start(t)
	// a's timeout is long enough to tell a goodbye (at once) from a
	// crash (noticed after the timeout), even on a loaded machine.
	cfgA := fastConfig(ns.URL(), 10)
	cfgA.NodeTimeout = 3 * time.Second
	a, ha, _ := start(t, cfgA)
	b, _, _ := start(t, fastConfig(ns.URL(), 11))
	_, _, stopC := start(t, fastConfig(ns.URL(), 12))
	poll.True(t, 5*time.Second, "peers seen", func() bool { return slices.Equal(a.Peers(), []uint8{11, 12}) })

	stopC()
	poll.True(t, 1500*time.Millisecond, "goodbye seen before the timeout", func() bool {
		return slices.Equal(a.Peers(), []uint8{11})
	})
	crashed := time.Now()
	b.Close()
	poll.True(t, 10*time.Second, "crash noticed", func() bool { return len(a.Peers()) == 0 })
	if d := time.Since(crashed); d < 2*time.Second {
		t.Fatalf("crash noticed after %v, before the 3s timeout", d)
	}
	start(t, fastConfig(ns.URL(), 11))
	poll.True(t, 5*time.Second, "restart noticed", func() bool { return slices.Equal(a.Peers(), []uint8{11}) })
	// Events reach the handler from their own goroutine, in order.
	want := []string{"up 11", "up 12", "down 12", "down 11", "up 11"}
	poll.Until(t, 5*time.Second, func() error {
		_, events, _ := ha.snapshot()
		if len(events) < 2 || !slices.Equal(events[2:], want[2:]) {
			return fmt.Errorf("events = %v, want %v (first two in any order)", events, want)
		}
		return nil
	})
}

// The first-connect callback runs asynchronously and may come after the
// first heartbeats: it must not report those peers up a second time (CI
// once saw "up 11" twice). A reconnect does re-announce them.
func TestMember_FirstConnectAnnouncesNothing(t *testing.T) {
	ns := natstest.Start(t)
	a, ha, _ := start(t, fastConfig(ns.URL(), 10))
	start(t, fastConfig(ns.URL(), 11))
	poll.True(t, 5*time.Second, "peer seen", func() bool { return slices.Equal(a.Peers(), []uint8{11}) })

	a.nc.Opts.ConnectedCB(a.nc) // as if nats.go's callback goroutine ran late
	a.live.emit(99, false)      // a marker: events arrive in order
	poll.True(t, 5*time.Second, "marker seen", func() bool {
		_, events, _ := ha.snapshot()
		return slices.Contains(events, "down 99")
	})
	if _, events, _ := ha.snapshot(); !slices.Equal(events, []string{"up 11", "down 99"}) {
		t.Fatalf("events = %v, want [up 11 down 99]", events)
	}

	a.nc.Opts.ReconnectedCB(a.nc)
	poll.True(t, 5*time.Second, "re-announced after a reconnect", func() bool {
		_, events, _ := ha.snapshot()
		return slices.Equal(events, []string{"up 11", "down 99", "up 11"})
	})
}

func TestMember_ClustersShareAServerWithoutMixing(t *testing.T) {
	ns := natstest.Start(t)
	cfgA := fastConfig(ns.URL(), 10)
	cfgA.Name = "red"
	cfgB := fastConfig(ns.URL(), 11)
	cfgB.Name = "blue"
	a, ha, _ := start(t, cfgA)
	b, _, _ := start(t, cfgB)
	ha.add(Presence{User: 1, Node: 10})
	if err := a.Join(1); err != nil {
		t.Fatal(err)
	}
	_ = a.nc.Flush()
	ctx := context.Background()
	if on, err := b.Online(ctx, 1); err != nil || on {
		t.Fatalf("blue sees red's player: %v, %v", on, err)
	}
	okA, errA := a.Acquire(ctx, 5)
	okB, errB := b.Acquire(ctx, 5)
	if !okA || !okB || errA != nil || errB != nil {
		t.Fatalf("leases are shared across clusters: %v %v %v %v", okA, errA, okB, errB)
	}
	time.Sleep(200 * time.Millisecond) // several heartbeat periods: nothing may arrive, so there is nothing to poll for
	if len(a.Peers()) != 0 || len(b.Peers()) != 0 {
		t.Fatalf("clusters see each other: %v %v", a.Peers(), b.Peers())
	}
}

func TestMember_SurvivesNATSRestart(t *testing.T) {
	ns := natstest.Start(t)
	a, ha, _ := start(t, fastConfig(ns.URL(), 10))
	b, _, _ := start(t, fastConfig(ns.URL(), 11))
	ha.add(Presence{User: 1, Node: 10})
	if err := a.Join(1); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The lease bucket's first use creates it: on a loaded machine JetStream
	// may take longer than one call's deadline, so ask until it answers.
	poll.True(t, 15*time.Second, "leases work", func() bool {
		ok, err := b.Acquire(ctx, 9)
		return err == nil && ok
	})
	ns.Restart()
	poll.Until(t, 10*time.Second, func() error {
		on, err := b.Online(ctx, 1)
		if err != nil {
			return err
		}
		if !on {
			return fmt.Errorf("player 1 not reachable yet")
		}
		return nil
	})
	poll.True(t, 10*time.Second, "leases work again", func() bool {
		ok, err := b.Acquire(ctx, 10)
		return err == nil && ok
	})
	poll.True(t, 5*time.Second, "peers see each other again", func() bool { return slices.Equal(a.Peers(), []uint8{11}) })
}

func TestConfig_Validate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Config{URLs: []string{"nats://x"}, NodeID: 10}, true},
		{"no urls", Config{NodeID: 10}, false},
		{"node 0", Config{URLs: []string{"nats://x"}}, false},
		{"bad name", Config{URLs: []string{"nats://x"}, NodeID: 10, Name: "a.b"}, false},
		{"timeout below heartbeat", Config{URLs: []string{"nats://x"}, NodeID: 10, Heartbeat: time.Second, NodeTimeout: time.Second}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
