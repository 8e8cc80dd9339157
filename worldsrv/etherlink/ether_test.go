package etherlink_test

import (
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/ethertest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/etherlink"
)

// The real sidecar: the client registers, a LoginCheck comes back as a
// LoginCheckResponse, and a sidecar killed and restarted is a Disconnected,
// a backed-off redial, a new registration and a Connected.
func TestEther_RegistersRoundTripsAndSurvivesASidecarRestart(t *testing.T) {
	sc := ethertest.Start(t)
	log, lines := recordingLogger(t)
	c := startClient(t, etherlink.Config{Addr: sc.Addr(), NodeID: 10, Logger: log})
	expectKind(t, c, etherlink.Connected)
	sc.WaitWorldLink("up")
	if !c.Send(proto.LoginCheck{User37: 4242}) {
		t.Fatal("Send LoginCheck on an up link returned false")
	}
	awaitMsg(t, c, proto.LoginCheckResponse{User37: 4242, Allowed: true})

	sc.Kill()
	if ev := expectKind(t, c, etherlink.Disconnected); ev.Err == nil {
		t.Fatal("Disconnected carries no reason")
	}
	poll.True(t, wait, "link down", func() bool { return !c.Up() })
	if c.Send(proto.LoginCheck{User37: 4343}) {
		t.Fatal("Send while the sidecar is dead returned true")
	}
	restarted := time.Now()
	sc.Run()
	expectKind(t, c, etherlink.Connected)
	t.Logf("linked again %v after the sidecar's restart began", time.Since(restarted).Round(time.Millisecond))
	sc.WaitWorldLink("up")
	// 4242's login lock is a lease in NATS, which lived on (10 s): ask
	// about another player.
	if !c.Send(proto.LoginCheck{User37: 4343}) {
		t.Fatal("Send after the reconnect returned false")
	}
	awaitMsg(t, c, proto.LoginCheckResponse{User37: 4343, Allowed: true})
	// Received counts an event just after Drain can see it.
	poll.True(t, ethertest.Wait, "both answers counted", func() bool { return c.Stats().Received >= 2 })
	st := c.Stats()
	if st.Connects != 2 || st.Reconnects != 1 || st.Dropped.Down != 1 || st.Received < 2 {
		t.Fatalf("stats %+v: want 2 connects, 1 reconnect, 1 dropped while down", st)
	}
	// The first connection lasted only the test's moment, so the second is
	// logged once it has lasted a second.
	poll.True(t, wait, "two connected lines", func() bool { return lines.count("ether link connected") == 2 })
}

// The sidecar decodes the client's WorldRegister on every connection: a
// world registering as node 11 with sidecar 10 is what ether warns about,
// and a restarted sidecar (a new process, a new log) hears it again.
func TestEther_HearsWorldRegisterOnEveryConnection(t *testing.T) {
	sc := ethertest.Start(t)
	c := startClient(t, etherlink.Config{Addr: sc.Addr(), NodeID: 11})
	for i := range 2 {
		expectKind(t, c, etherlink.Connected)
		poll.True(t, wait, "ether warns of world node 11", func() bool {
			return contains(sc.Output(), "world registered with a node id other than ours") &&
				contains(sc.Output(), "world_node=11")
		})
		if i == 0 {
			sc.Kill()
			expectKind(t, c, etherlink.Disconnected)
			sc.Run()
		}
	}
}

// With RS_LINK_TOKEN the sidecar proves the token to a client holding it,
// which links; a client holding another token finds the proof wrong and
// does not link (nor show the sidecar its token), and the sidecar refuses
// the connection the client leaves.
func TestEther_LinkToken(t *testing.T) {
	sc := ethertest.Start(t, "RS_LINK_TOKEN=s3cret-token")
	log, lines := recordingLogger(t)
	wrong := startClient(t, etherlink.Config{Addr: sc.Addr(), NodeID: 10, Token: []byte("guess"), Logger: log})
	poll.True(t, wait, "the client refused the sidecar's proof", func() bool {
		return lines.count("its link proof is for another token") == 1
	})
	poll.True(t, wait, "ether refused the connection", func() bool {
		return contains(sc.Output(), "refusing a world connection")
	})
	if st := wrong.Stats(); st.Up || st.Connects != 0 {
		t.Fatalf("stats %+v: linked with the wrong token", st)
	}
	if got, err := sc.WorldLink(); err != nil || got != "down" {
		t.Fatalf("world_link %q, %v after a wrong token; want down", got, err)
	}
	if contains(sc.Output(), "guess") || contains(sc.Output(), "s3cret") {
		t.Fatal("a token appears in ether's log")
	}

	right := startClient(t, etherlink.Config{Addr: sc.Addr(), NodeID: 10, Token: []byte("s3cret-token")})
	expectKind(t, right, etherlink.Connected)
	sc.WaitWorldLink("up")
	if !right.Send(proto.LoginCheck{User37: 77}) {
		t.Fatal("Send returned false")
	}
	awaitMsg(t, right, proto.LoginCheckResponse{User37: 77, Allowed: true})
}

// The real sidecar answers the handshake's FeatureQuery with LoginRelease,
// and a released login lock is free at once (not after its 10 s).
func TestEther_FeaturesAndLoginRelease(t *testing.T) {
	sc := ethertest.Start(t)
	c := startClient(t, etherlink.Config{Addr: sc.Addr(), NodeID: 10, QueryFeatures: true})
	expectKind(t, c, etherlink.Connected)
	awaitMsg(t, c, proto.Features{Mask: proto.FeatureLoginRelease})
	c.Send(proto.LoginCheck{User37: 5151})
	awaitMsg(t, c, proto.LoginCheckResponse{User37: 5151, Allowed: true})
	c.Send(proto.LoginRelease{User37: 5151})
	c.Send(proto.LoginCheck{User37: 5151}) // on the player's queue behind the release
	awaitMsg(t, c, proto.LoginCheckResponse{User37: 5151, Allowed: true})
}
