package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

// TestLease_WorksOnEveryServerKind takes, holds and expires a login lock on
// the embedded server (newest, limit markers) and on the machine's
// nats-server (Debian 12: 2.9.10, no limit markers), and checks the state
// reported for health. Limit markers are used exactly where the server has
// them (JetStream API level 1: nats-server 2.11+).
func TestLease_WorksOnEveryServerKind(t *testing.T) {
	for _, kind := range []natstest.Kind{natstest.Embedded, natstest.External} {
		t.Run(string(kind), func(t *testing.T) {
			ns := natstest.StartKind(t, kind)
			a, _, _ := start(t, fastConfig(ns.URL(), 10))
			b, _, _ := start(t, fastConfig(ns.URL(), 11))
			ctx := context.Background()
			if ok, err := a.Acquire(ctx, 1); !ok || err != nil {
				t.Fatalf("first take: %v, %v (state %v)", ok, err, a.LockState())
			}
			if ok, err := b.Acquire(ctx, 1); ok || err != nil {
				t.Fatalf("take while held: %v, %v", ok, err)
			}
			taken := time.Now()
			poll.True(t, 5*time.Second, "lock expires", func() bool {
				ok, err := b.Acquire(ctx, 1)
				return ok && err == nil
			})
			if d := time.Since(taken); d < 500*time.Millisecond {
				t.Fatalf("a 1s lock expired after %v", d)
			}
			if st := a.LockState(); st.String() != "ok" || st.Replicas != 1 {
				t.Fatalf("lock state %+v, want ok with 1 replica on a lone server", st)
			}
			js := jetStream(t, ns)
			acct, err := js.AccountInfo(ctx)
			if err != nil {
				t.Fatal(err)
			}
			markers := acct.API.Level >= 1
			if kind == natstest.Embedded && !markers {
				t.Fatal("the embedded server (go.mod's, 2.11+) has no JetStream API level")
			}
			s, err := js.Stream(ctx, "KV_ether_login")
			if err != nil {
				t.Fatal(err)
			}
			if c := s.CachedInfo().Config; c.AllowMsgTTL != markers || c.MaxAge != time.Second {
				t.Fatalf("bucket config: limit markers %v (want %v), max age %v", c.AllowMsgTTL, markers, c.MaxAge)
			}
		})
	}
}

func TestLease_StateWhileNATSIsDown(t *testing.T) {
	ns := natstest.Start(t)
	a, _, _ := start(t, fastConfig(ns.URL(), 10))
	poll.True(t, 5*time.Second, "lock ready", func() bool { return a.LockState().Available })
	ns.Shutdown()
	poll.True(t, 5*time.Second, "lock unavailable without NATS", func() bool {
		st := a.LockState()
		return !st.Available && st.String() == "unavailable: not connected to NATS (login checks use a node-local lock)"
	})
	ns.Restart()
	poll.True(t, 10*time.Second, "lock back with NATS", func() bool { return a.LockState().Available })
}

func TestLease_ExplicitReplicasBeyondTheServersIsUnavailable(t *testing.T) {
	ns := natstest.Start(t)
	cfg := fastConfig(ns.URL(), 10)
	cfg.LockReplicas = 3
	a, _, _ := start(t, cfg)
	if ok, err := a.Acquire(context.Background(), 1); ok || err == nil {
		t.Fatalf("Acquire with 3 replicas on one server = %v, %v; want an error", ok, err)
	}
	if st := a.LockState(); st.Available || st.Reason == "" {
		t.Fatalf("lock state %+v, want unavailable with a reason", st)
	}
}

func TestVersionAtLeast(t *testing.T) {
	tests := []struct {
		have string
		want bool
	}{
		{"2.9.0", true}, {"2.9.10", true}, {"2.10.22", true}, {"2.11.0-RC.1", true}, {"v2.12.1", true},
		{"2.8.4", false}, {"1.4.1", false}, {"2.2.6+build", false}, {"", true}, {"weird", true},
	}
	for _, tt := range tests {
		if got := versionAtLeast(tt.have, MinServerVersion); got != tt.want {
			t.Errorf("versionAtLeast(%q, %s) = %v, want %v", tt.have, MinServerVersion, got, tt.want)
		}
	}
}

func jetStream(t *testing.T, ns *natstest.Server) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(ns.Connect(t))
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestLease_ReplicasFollowTheClusterSize: by default the bucket has as many
// replicas as the NATS cluster has servers, up to 3 (a lone server: 1,
// covered above); two servers refuse three, and the lease steps down.
func TestLease_ReplicasFollowTheClusterSize(t *testing.T) {
	servers := natstest.StartCluster(t, 2)
	cfg := fastConfig(servers[0].URL(), 10)
	cfg.URLs = append(cfg.URLs, servers[1].URL())
	cfg.RequestTimeout = 5 * time.Second // clustered stream creation on a loaded machine
	a, _, _ := start(t, cfg)
	poll.True(t, 30*time.Second, "lock ready", func() bool { return a.LockState().Available })
	if st := a.LockState(); st.Replicas != 2 {
		t.Fatalf("lock state %+v, want 2 replicas in a cluster of two", st)
	}
	if ok, err := a.Acquire(context.Background(), 1); !ok || err != nil {
		t.Fatalf("Acquire = %v, %v", ok, err)
	}
}

// TestLease_NoNeedlessBucketUpdates: eight nodes reaching for the login
// lock at once on a fresh Debian 12 nats-server (2.9.10) create its bucket
// concurrently, and every node checks it again later. 2.9.10 crashed (a
// nil dereference in its stream update, seen in CI) when a bucket update
// raced the bucket's creation by another node; nats.go's CreateOrUpdate
// sends an update first, every time. No node may send a stream update
// when nothing would change, every node must take or be refused the lock,
// and the server must stay up.
func TestLease_NoNeedlessBucketUpdates(t *testing.T) {
	ns := natstest.StartKind(t, natstest.External)
	spy := ns.Connect(t)
	updates, err := spy.SubscribeSync("$JS.API.STREAM.UPDATE.>")
	if err != nil {
		t.Fatal(err)
	}
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	members := make([]*Member, 8)
	for i := range members {
		members[i], _, _ = start(t, fastConfig(ns.URL(), uint8(10+i)))
	}
	for round := range 2 { // the second round finds the bucket there
		results := make(chan error, len(members))
		for _, m := range members {
			go func() {
				_, err := m.Acquire(context.Background(), uint64(100+round))
				results <- err
			}()
		}
		for range members {
			if err := <-results; err != nil {
				t.Fatalf("round %d: acquire: %v", round, err)
			}
		}
	}
	if err := spy.Flush(); err != nil {
		t.Fatalf("the server is gone: %v", err)
	}
	if n, _, _ := updates.Pending(); n != 0 {
		msg, _ := updates.NextMsg(time.Second)
		t.Fatalf("%d stream updates sent for a bucket that needed none (first: %s)", n, msg.Subject)
	}
}
