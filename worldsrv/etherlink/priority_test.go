package etherlink_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/etherlink"
)

// saveAcks returns n PlayerSaveAcks, the bookkeeping a mass logout queues.
func saveAcks(n int) []proto.Message {
	ms := make([]proto.Message, 0, n)
	for i := range n {
		ms = append(ms, proto.PlayerSaveAck{User37: uint64(1000 + i), Success: true})
	}
	return ms
}

// describe names an event for an order check.
func describe(ev etherlink.Event) string {
	switch m := ev.Msg.(type) {
	case proto.LoginCheckResponse:
		return fmt.Sprintf("login %d", m.User37)
	case proto.PlayerLoadResponse:
		return fmt.Sprintf("load %d", m.User37)
	case proto.PlayerSaveAck:
		return "ack"
	}
	return ev.Kind.String()
}

// Issue #10: 2,000 save acks queued by a mass logout held the login answers
// back for 20 ticks of Drain(100), past the pending-login limit (5 ticks).
func TestClient_Drain_LoginAnswerOvertakesQueuedSaveAcks(t *testing.T) {
	p := newPeer(t)
	c := startClient(t, etherlink.Config{Addr: p.addr(), NodeID: 10})
	s := p.accept()
	const acks = 2000
	s.send(append(saveAcks(acks), proto.LoginCheckResponse{User37: 7, Allowed: true},
		proto.FriendListComplete{Target37: 1}, proto.PlayerLoadResponse{User37: 7, SaveData: []byte{1}})...)
	poll.True(t, wait, "every frame queued", func() bool { return c.Stats().Received == acks+3 })
	if st := c.Stats(); st.InQueue != acks+4 {
		t.Fatalf("stats %+v: want Connected and %d frames queued", st, acks+3)
	}
	var got []string
	if n := c.Drain(100, func(ev etherlink.Event) { got = append(got, describe(ev)) }); n != 100 {
		t.Fatalf("Drain(100) = %d", n)
	}
	if want := "connected, login 7, load 7, ack×97"; runs(got) != want {
		t.Fatalf("Drain(100) handed over %s, want %s", runs(got), want)
	}
	if st := c.Stats(); st.InQueue != acks+4-100 {
		t.Fatalf("stats %+v: want %d events left", st, acks+4-100)
	}
}

// A login answer overtakes only frames of its own connection: never the
// Connected before it, nor the Disconnected after it.
func TestClient_Drain_LoginAnswerStaysBetweenItsConnectionsMarkers(t *testing.T) {
	p := newPeer(t)
	c := startClient(t, etherlink.Config{Addr: p.addr(), NodeID: 10, Backoff: fastBackoff})
	s1 := p.accept()
	s1.expect(proto.WorldRegister{NodeID: 10})
	const acks = 300
	s1.send(append(saveAcks(acks), proto.LoginCheckResponse{User37: 1})...)
	poll.True(t, wait, "first connection's frames queued", func() bool { return c.Stats().Received == acks+1 })
	s1.nc.Close()
	s2 := p.accept()
	s2.expect(proto.WorldRegister{NodeID: 10})
	s2.send(append(saveAcks(acks), proto.LoginCheckResponse{User37: 2})...)
	const queued = 2*(1+acks+1) + 1 // per connection Connected, acks and login; one Disconnected
	poll.True(t, wait, "both connections' events queued", func() bool { return c.Stats().InQueue == queued })

	var got []string
	for c.Drain(100, func(ev etherlink.Event) { got = append(got, describe(ev)) }) > 0 {
	}
	var want []string
	for _, user := range []int{1, 2} {
		want = append(want, "connected", fmt.Sprintf("login %d", user))
		for range acks {
			want = append(want, "ack")
		}
		if user == 1 {
			want = append(want, "disconnected")
		}
	}
	if runs(got) != runs(want) {
		t.Fatalf("order:\n got %s\nwant %s", runs(got), runs(want))
	}
}

// runs writes a list of event names with each run of equal names once,
// counted: "connected, login 1, ack×300, ...".
func runs(names []string) string {
	var b strings.Builder
	for i := 0; i < len(names); {
		j := i
		for j < len(names) && names[j] == names[i] {
			j++
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(names[i])
		if j-i > 1 {
			fmt.Fprintf(&b, "×%d", j-i)
		}
		i = j
	}
	return b.String()
}
