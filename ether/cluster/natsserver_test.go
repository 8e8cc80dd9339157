package cluster

import (
	"testing"

	"github.com/corrosion/corrosion/internal/natstest"
)

// TestMember_OnExternalNATSServer runs the cluster tests against the
// machine's nats-server binary as its own process (Debian 12: 2.9.10), so
// that a feature the embedded (newest) server has and the servers users
// install lack can never land unnoticed.
func TestMember_OnExternalNATSServer(t *testing.T) {
	tests := []struct {
		name string
		run  func(*testing.T)
	}{
		{"LookupPingAndPM", TestMember_LookupPingAndPM},
		{"BroadcastAndTargetedPresence", TestMember_BroadcastAndTargetedPresence},
		{"LoginLease", TestMember_LoginLease},
		{"ConcurrentAcquireAcrossNodes_ExactlyOneWins", TestMember_ConcurrentAcquireAcrossNodes_ExactlyOneWins},
		{"Liveness", TestMember_Liveness},
		{"ClustersShareAServerWithoutMixing", TestMember_ClustersShareAServerWithoutMixing},
		{"SurvivesNATSRestart", TestMember_SurvivesNATSRestart},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			natstest.UseExternal(t)
			tt.run(t)
		})
	}
}
