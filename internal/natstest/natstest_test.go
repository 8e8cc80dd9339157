package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

func TestServer_RequestReplyAndRestart(t *testing.T) {
	for _, kind := range []Kind{Embedded, External} {
		t.Run(string(kind), func(t *testing.T) { testRequestReplyAndRestart(t, StartKind(t, kind)) })
	}
}

func testRequestReplyAndRestart(t *testing.T, s *Server) {
	reconnected := make(chan struct{}, 1)
	nc := s.Connect(t, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond),
		nats.ReconnectHandler(func(*nats.Conn) { reconnected <- struct{}{} }))
	if _, err := nc.Subscribe("echo", func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		t.Fatal(err)
	}
	check := func() {
		t.Helper()
		msg, err := nc.Request("echo", []byte("hi"), 2*time.Second)
		if err != nil || string(msg.Data) != "hi" {
			t.Fatalf("echo: %v %q", err, msgData(msg))
		}
	}
	check()
	s.Restart()
	select {
	case <-reconnected:
	case <-time.After(10 * time.Second):
		t.Fatal("client did not reconnect after restart")
	}
	check()
	js, err := nc.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.AccountInfo(); err != nil {
		t.Fatalf("jetstream not enabled: %v", err)
	}
}

func msgData(m *nats.Msg) []byte {
	if m == nil {
		return nil
	}
	return m.Data
}

func TestStart_FollowsEnv(t *testing.T) {
	UseExternal(t)
	if s := Start(t); s.Kind() != External {
		t.Fatalf("Start under %s=external started %s", EnvServer, s.Kind())
	}
}

func TestStartCluster_ThreeServersReplicateJetStream(t *testing.T) {
	servers := StartCluster(t, 3)
	nc := servers[0].Connect(t)
	js, err := nc.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	info, err := js.AddStream(&nats.StreamConfig{Name: "R3", Subjects: []string{"r3"}, Replicas: 3})
	if err != nil {
		t.Fatalf("a replicated stream: %v", err)
	}
	if info.Cluster == nil || len(info.Cluster.Replicas) != 2 || info.Cluster.Leader == "" {
		t.Fatalf("cluster info %+v", info.Cluster)
	}
}

// FreePort never hands one test process the same port twice, and stays
// below the ephemeral range (a world given two equal draws refused them).
func TestFreePort_DistinctBelowTheEphemeralRange(t *testing.T) {
	seen := map[int]bool{}
	for range 300 {
		p := FreePort(t)
		if seen[p] || p < 26000 || p >= 32000 {
			t.Fatalf("port %d: repeated %v, or outside 26000-31999", p, seen[p])
		}
		seen[p] = true
	}
}
