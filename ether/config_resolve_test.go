package ether_test

import (
	"bytes"
	"context"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/corrosion/corrosion/ether"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

// TestConfig_ValidateNeverChangesTheConfig: defaults are filled in by
// Resolved, once, into a copy; Validate only looks.
func TestConfig_ValidateNeverChangesTheConfig(t *testing.T) {
	c := ether.DefaultConfig()
	c.ClusterHosts = []string{"10.0.0.1:4222", "nats://10.0.0.2:4222"}
	c.EtherPort = 0
	hosts := c.ClusterHosts
	before := c
	before.ClusterHosts = slices.Clone(c.ClusterHosts)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, before) {
		t.Fatalf("Validate changed the config:\n got %+v\nwant %+v", c, before)
	}
	r := c.Resolved()
	if !slices.Equal(hosts, before.ClusterHosts) {
		t.Fatalf("Resolved changed the caller's hosts: %v", hosts)
	}
	if !slices.Equal(r.ClusterHosts, []string{"nats://10.0.0.1:4222", "nats://10.0.0.2:4222"}) || r.EtherPort != 5010 {
		t.Fatalf("resolved hosts %v, port %d", r.ClusterHosts, r.EtherPort)
	}
	if err := r.Validate(); err != nil {
		t.Fatalf("a resolved config is invalid: %v", err)
	}
}

func TestLoadConfig_LogLevelAndLockReplicas(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      []string
		level    slog.Level
		replicas int
		err      string
	}{
		{name: "defaults", level: slog.LevelInfo, replicas: 0},
		{name: "environment", env: []string{"RS_LOG_LEVEL=WARN", "RS_LOCK_REPLICAS=3"}, level: slog.LevelWarn, replicas: 3},
		{name: "flags", args: []string{"--log-level", "debug", "--lock-replicas=1"}, level: slog.LevelDebug, replicas: 1},
		{name: "too many replicas", env: []string{"RS_LOCK_REPLICAS=7"}, err: "RS_LOCK_REPLICAS"},
		{name: "negative replicas", args: []string{"--lock-replicas=-1"}, err: "RS_LOCK_REPLICAS"},
		{name: "bad level in the environment", env: []string{"RS_LOG_LEVEL=loud"}, err: "RS_LOG_LEVEL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ether.LoadConfig(tt.args, envOf(tt.env...))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one naming %s", err, tt.err)
				}
				return
			}
			if err != nil || c.LogLevel != tt.level || c.LockReplicas != tt.replicas {
				t.Fatalf("level %v replicas %d err %v; want %v %d", c.LogLevel, c.LockReplicas, err, tt.level, tt.replicas)
			}
		})
	}
}

// TestNewLogger_NodeOnce: every line of a running node carries node=10
// once (the logger adds it; the node's own calls must not repeat it).
func TestNewLogger_NodeOnce(t *testing.T) {
	c := newTestCluster(t, "")
	cfg := c.base
	cfg.NodeID, cfg.EtherPort = 10, natstest.FreePort(t)
	var out syncBuffer
	n, err := ether.New(context.Background(), cfg, ether.NewLogger(&out, cfg))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Run(ctx) }()
	poll.True(t, wait, "ether ready logged", func() bool { return strings.Contains(out.String(), "ether ready") })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, l := range lines {
		if got := strings.Count(l, " node=10"); got != 1 {
			t.Errorf("node=10 %d times in %q", got, l)
		}
	}
	if !strings.Contains(out.String(), "ether stopped") {
		t.Errorf("no stop line in:\n%s", out.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer // guarded by mu
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
