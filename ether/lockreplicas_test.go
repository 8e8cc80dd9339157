package ether_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corrosion/corrosion/ether"
	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
)

// TestLoginLock_SurvivesTheLossOfTheServerLeadingItsBucket: in a NATS
// cluster of three, the login lock's bucket gets three replicas (an
// existing one-replica bucket is raised), so killing the server that leads
// the bucket's stream leaves login checks working through the cluster-wide
// lock.
func TestLoginLock_SurvivesTheLossOfTheServerLeadingItsBucket(t *testing.T) {
	servers := natstest.StartCluster(t, 3)
	var urls []string
	for _, s := range servers {
		urls = append(urls, s.URL())
	}
	dsn := pgtest.NewDatabase(t)
	c := &testCluster{t: t, nats: servers[0], dsn: dsn, nodes: map[uint8]*testNode{}}
	c.base = configFor(t, dsn, urls[0])
	c.base.ClusterHosts = urls
	if err := ether.Migrate(context.Background(), c.base, testLogger(t, "migrate")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.stopAll)

	// The bucket as an earlier ether left it: one replica.
	js, err := jetstream.New(servers[0].Connect(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "t_login", History: 1, TTL: time.Second,
		Storage: jetstream.FileStorage, Replicas: 1}); err != nil {
		t.Fatal(err)
	}

	// A lock long enough that none expires within the test.
	n := c.start(10, func(cfg *ether.Config) { cfg.LeaseTTL = 30 * time.Second })
	w := connectWorld(t, n)
	poll.Until(t, 30*time.Second, func() error {
		if h := n.node.Health(); h.LoginLock != "ok" || h.LoginLockReplicas != 3 {
			return notYet("login lock %q with %d replicas", h.LoginLock, h.LoginLockReplicas)
		}
		return nil
	})
	w.send(proto.LoginCheck{User37: 1})
	w.expect(allowed(1))

	stream, err := js.Stream(ctx, "KV_t_login")
	if err != nil {
		t.Fatal(err)
	}
	info := stream.CachedInfo()
	if info.Config.Replicas != 3 || info.Cluster == nil || info.Cluster.Leader == "" {
		t.Fatalf("bucket stream: replicas %d, cluster %+v", info.Config.Replicas, info.Cluster)
	}
	var survivor *natstest.Server
	for _, s := range servers {
		if s.Name() == info.Cluster.Leader {
			t.Logf("killing %s, the leader of the login lock's stream", s.Name())
			s.Shutdown()
		} else {
			survivor = s
		}
	}
	if survivor == nil || len(servers) == 1 {
		t.Fatalf("no server named %q", info.Cluster.Leader)
	}
	kv := loginBucket(t, survivor)

	p := uint64(1)
	killedAt := time.Now()
	poll.Until(t, 30*time.Second, func() error {
		// While the node's own connection (if it was to the killed server)
		// is down, checks use a node-local lock: not what is tested here.
		// So each try is a new player, and it counts only when the lock
		// taken is in the cluster-wide bucket.
		if h := n.node.Health(); !h.NATSConnected {
			return notYet("node not connected to NATS")
		}
		p++
		w.send(proto.LoginCheck{User37: p})
		if m := w.next(); m != allowed(p) {
			return notYet("login check of %d: %#v (lock %q)", p, m, n.node.Health().LoginLock)
		}
		if _, err := kv.Get(context.Background(), "u"+strconv.FormatUint(p, 10)); err != nil {
			return notYet("login check of %d allowed, but not with the cluster-wide lock: %v", p, err)
		}
		return nil
	})
	t.Logf("logins allowed again %v after the kill", time.Since(killedAt).Round(time.Millisecond))
	// The lock taken is the cluster-wide one: held, and NATS connected.
	w.send(proto.LoginCheck{User37: p})
	w.expect(denied(p))
	if h := n.node.Health(); !h.NATSConnected || h.LoginLock != "ok" {
		t.Fatalf("after the kill: nats connected %v, login lock %q", h.NATSConnected, h.LoginLock)
	}
}

// loginBucket opens the login lock's bucket through server s.
func loginBucket(t *testing.T, s *natstest.Server) jetstream.KeyValue {
	t.Helper()
	js, err := jetstream.New(s.Connect(t))
	if err != nil {
		t.Fatal(err)
	}
	var kv jetstream.KeyValue
	poll.Until(t, 30*time.Second, func() error {
		kv, err = js.KeyValue(context.Background(), "t_login")
		return err
	})
	return kv
}
