package ether_test

import (
	"strings"
	"testing"

	"github.com/corrosion/corrosion/ether"
	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

// TestEther_OnExternalNATSServer runs the login lock and health tests
// against the machine's nats-server binary as its own process (Debian 12:
// 2.9.10, which lacks limit markers): allowed, denied while the lock is
// held, allowed after expiry, and a health snapshot saying the lock is ok.
func TestEther_OnExternalNATSServer(t *testing.T) {
	tests := []struct {
		name string
		run  func(*testing.T)
	}{
		{"LoginCheck_LockAndSessions", TestLoginCheck_LockAndSessions},
		{"LoginCheck_LockExpires", TestLoginCheck_LockExpires},
		{"LoginCheck_FiftyConcurrentChecksOverThreeNodes_OneAllowed", TestLoginCheck_FiftyConcurrentChecksOverThreeNodes_OneAllowed},
		{"HealthAndMetrics", TestHealthAndMetrics},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			natstest.UseExternal(t)
			tt.run(t)
		})
	}
}

// TestLoginLock_UnavailableIsReported: a login lock that cannot work (here:
// three replicas asked of a single server) denies login checks and says so
// in /health and /metrics instead of looking healthy.
func TestLoginLock_UnavailableIsReported(t *testing.T) {
	c := newTestCluster(t, "")
	n := c.start(10, func(cfg *ether.Config) { cfg.LockReplicas = 3; cfg.MetricsListen = "127.0.0.1:0" })
	w := connectWorld(t, n)
	w.send(proto.LoginCheck{User37: 5})
	w.expect(denied(5))
	if got := n.node.Health().LoginLock; !strings.HasPrefix(got, "unavailable: ") || !strings.Contains(got, "3 replicas") {
		t.Fatalf("login_lock = %q, want unavailable naming the 3 replicas", got)
	}
	addr := "http://" + n.node.MetricsAddr().String()
	poll.True(t, wait, "metrics show the lock down", func() bool {
		return strings.Contains(get(t, addr+"/metrics"), "ether_login_lock_up 0")
	})
	if body := get(t, addr+"/health"); !strings.Contains(body, `"login_lock":"unavailable: `) {
		t.Fatalf("/health: %s", body)
	}
}
