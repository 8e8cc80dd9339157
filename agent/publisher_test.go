package agent

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

// The publisher takes no lock of its own: instances publishing at once
// must still each get whole messages of their own, in their own order,
// with a state event after the console lines before it.
func TestPublisher_ConcurrentInstancesGetWholeMessagesInOrder(t *testing.T) {
	const instances, messages = 4, 300
	ns := natstest.Start(t)
	sub := ns.Connect(t)
	msgs := make(chan *nats.Msg, instances*(messages+1))
	if _, err := sub.ChanSubscribe("corrosion.lic.>", msgs); err != nil { // one subscription: server order
		t.Fatal(err)
	}
	if err := sub.Flush(); err != nil {
		t.Fatal(err)
	}
	p := &publisher{license: "lic", log: slog.New(slog.NewTextHandler(testLogWriter{t}, nil))}
	p.setConn(ns.Connect(t))
	var wg sync.WaitGroup
	for i := range instances {
		wg.Go(func() {
			id := fmt.Sprintf("i%d", i)
			for n := range messages {
				// Lengths vary so that pooled buffers are reused at other sizes.
				text := fmt.Sprintf("%s %d %s", id, n, strings.Repeat("x", (n*37+i*11)%2000))
				p.Console(id, []wire.ConsoleLine{{Stream: wire.StreamStdout, Text: text}})
			}
			p.State(id, wire.StateEvent{State: wire.StateStopped})
		})
	}
	wg.Wait()
	next := map[string]int{} // per instance: the next console message expected
	for range instances * (messages + 1) {
		var m *nats.Msg
		poll.True(t, 10*time.Second, "all messages", func() bool {
			select {
			case m = <-msgs:
				return true
			default:
				return false
			}
		})
		checkPublished(t, m, next, messages)
	}
}

// checkPublished checks one message against the per-instance sequence.
func checkPublished(t *testing.T, m *nats.Msg, next map[string]int, messages int) {
	t.Helper()
	if strings.HasSuffix(m.Subject, ".status") {
		var ev wire.StatusEvent
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			t.Fatalf("status %q: %v", m.Data, err)
		}
		if next[ev.InstanceID] != messages {
			t.Fatalf("%s: state event after %d of %d console messages", ev.InstanceID, next[ev.InstanceID], messages)
		}
		return
	}
	var cm wire.ConsoleMessage
	if err := json.Unmarshal(m.Data, &cm); err != nil {
		t.Fatalf("console message %.80q: %v", m.Data, err)
	}
	var id string
	var n int
	if len(cm.Lines) != 1 {
		t.Fatalf("%d lines in one message", len(cm.Lines))
	}
	if _, err := fmt.Sscanf(cm.Lines[0].Text, "%s %d", &id, &n); err != nil || id != cm.InstanceID {
		t.Fatalf("message of %s on %s carries %.40q", cm.InstanceID, m.Subject, cm.Lines[0].Text)
	}
	if n != next[id] {
		t.Fatalf("%s: message %d, want %d", id, n, next[id])
	}
	next[id]++
}

type testLogWriter struct{ t testing.TB }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
