package ether_test

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"

	"github.com/corrosion/corrosion/ether"
	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/natstest"
)

func TestPlayerSaves_SaveAckLoad(t *testing.T) {
	c := newTestCluster(t, "")
	w := connectWorld(t, c.start(10))
	const p = 91
	big := bytes.Repeat([]byte{0xab}, proto.MaxPayload-9) // the largest blob a frame can carry
	steps := []struct {
		name string
		send proto.Message
		want proto.Message
	}{
		{"load with no save is empty", proto.PlayerLoadRequest{User37: p}, proto.PlayerLoadResponse{User37: p, SaveData: []byte{}}},
		{"save", proto.PlayerSaveRequest{User37: p, SaveData: []byte("v1")}, proto.PlayerSaveAck{User37: p, Success: true}},
		{"load", proto.PlayerLoadRequest{User37: p}, proto.PlayerLoadResponse{User37: p, SaveData: []byte("v1")}},
		{"overwrite with the largest blob", proto.PlayerSaveRequest{User37: p, SaveData: big}, proto.PlayerSaveAck{User37: p, Success: true}},
		{"load the largest blob", proto.PlayerLoadRequest{User37: p}, proto.PlayerLoadResponse{User37: p, SaveData: big}},
		{"empty save", proto.PlayerSaveRequest{User37: p + 1}, proto.PlayerSaveAck{User37: p + 1, Success: true}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			w.t = t
			w.send(s.send)
			w.expect(s.want)
		})
	}
}

func TestClusterName_TwoClustersShareOneNATSServer(t *testing.T) {
	c := newTestCluster(t, "")
	red := connectWorld(t, c.start(10, func(cfg *ether.Config) { cfg.ClusterName = "red" }))
	blue := connectWorld(t, c.start(11, func(cfg *ether.Config) { cfg.ClusterName = "blue" }))
	const p, f = 95, 96 // f (blue) lists p (red)
	c.friends(f, p)
	red.login(p)
	// Another cluster neither sees p's session nor shares its login lock.
	if got := blue.login(f); !reflect.DeepEqual(got, []proto.Message{ufl(f, p, 0), proto.UpdateIgnoreList{Target37: f}, proto.FriendListComplete{Target37: f}}) {
		t.Fatalf("blue sees red's player: %#v", got)
	}
	blue.send(proto.LoginCheck{User37: p})
	blue.expect(allowed(p))
	red.send(proto.LoginCheck{User37: f})
	red.expect(allowed(f))
}

func TestRun_StartsWithoutNATS(t *testing.T) {
	c := newTestCluster(t, "")
	dead := "nats://127.0.0.1:" + strconv.Itoa(natstest.FreePort(t))
	w := connectWorld(t, c.start(10, func(cfg *ether.Config) { cfg.ClusterHosts = []string{dead} }))
	const a, b = 97, 98 // b lists a; both on this node
	c.friends(b, a)
	w.login(a) // the login lock falls back to a node-local one
	if got := w.login(b); !reflect.DeepEqual(got[0], ufl(b, a, 10)) {
		t.Fatalf("local presence without NATS: %#v", got)
	}
	w.send(proto.LoginCheck{User37: a})
	w.expect(denied(a))
}
