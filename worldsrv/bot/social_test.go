package bot_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/worldsrv/bot"
	"github.com/corrosion/corrosion/worldsrv/bot/worldtest"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// friendNode polls until c sees friend at node.
func friendNode(t *testing.T, c *bot.Client, friend string, node uint8) {
	t.Helper()
	poll.Until(t, wait, func() error {
		st := c.State()
		if n, ok := lookup(st.Friends, friend); !ok || n != node {
			return fmt.Errorf("%s sees friends %v (system messages %q), want %s at node %d",
				c.Name(), st.Friends, st.System, friend, node)
		}
		return nil
	})
}

// Two worlds (nodes 10 and 11) with their sidecars: friends, a stamped PM
// with its latency, ignores and the private chat mode, seen by the bots.
func TestClient_Social_AcrossTwoWorlds(t *testing.T) {
	cl := worldtest.NewCluster(t)
	w1, w2 := cl.StartSpawn(t, 10), cl.StartSpawn(t, 11)
	a, b := dial(t, w1, "alice"), dial(t, w2, "bob")
	must(t, a.AddFriend("bob"))
	friendNode(t, a, "bob", 11)
	must(t, b.AddFriend("alice"))
	friendNode(t, a, "bob", 11)
	friendNode(t, b, "alice", 10)

	must(t, a.PM("bob", bot.Stamp(7, time.Now())))
	var got bot.PM
	for ev := range b.Events() {
		if ev.Kind == bot.EventPM {
			got = ev.PM
			break
		}
	}
	if !strings.EqualFold(got.From, "alice") || !got.Stamped || got.Seq != 7 || got.Latency <= 0 || got.Latency > wait {
		t.Fatalf("PM at bob %+v", got)
	}
	if st := b.State(); st.PMCount != 1 || len(st.PMs) != 1 {
		t.Fatalf("bob's state: %d PMs %v", st.PMCount, st.PMs)
	}

	must(t, b.AddIgnore("carol"))
	poll.True(t, wait, "bob's ignore list has carol", func() bool {
		return slices.EqualFunc(b.State().Ignores, []string{"carol"}, strings.EqualFold)
	})
	must(t, b.DelIgnore("carol"))
	poll.True(t, wait, "bob's ignore list is empty", func() bool { return len(b.State().Ignores) == 0 })

	must(t, b.SetChat(proto.ChatOn, proto.ChatOff, proto.ChatOn))
	friendNode(t, a, "bob", 0)
	poll.True(t, wait, "bob's chat settings are private off", func() bool {
		return b.State().Chat.Private == proto.ChatOff
	})
	must(t, a.DelFriend("bob"))
	poll.True(t, wait, "alice's friend list is empty", func() bool { return len(a.State().Friends) == 0 })
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// lookup finds a friend by name, case-insensitively (the world names
// players in display case, "Alice").
func lookup(friends map[string]uint8, name string) (uint8, bool) {
	for k, n := range friends {
		if strings.EqualFold(k, name) {
			return n, true
		}
	}
	return 0, false
}
