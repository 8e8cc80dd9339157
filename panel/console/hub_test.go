package console

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func publishLines(t *testing.T, nc *nats.Conn, license, instance string, texts ...string) {
	t.Helper()
	m := wire.ConsoleMessage{Timestamp: time.Now(), InstanceID: instance}
	for _, s := range texts {
		m.Lines = append(m.Lines, wire.ConsoleLine{Stream: wire.StreamStdout, Text: s})
	}
	if err := nc.Publish(wire.ConsoleSubject(license, instance), m.AppendJSON(nil)); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
}

func TestHub_SubscribesOnlyWhileWatched(t *testing.T) {
	ns := natstest.Start(t)
	nc := ns.Connect(t)
	h := NewHub(nc, testLogger(t))
	if h.Subscriptions() != 0 || nc.NumSubscriptions() != 0 {
		t.Fatalf("subscribed before anyone watches: %d", nc.NumSubscriptions())
	}
	a1, err := h.Watch("lic", "world")
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := h.Watch("lic", "world")
	b, _ := h.Watch("lic", "ether")
	if got := nc.NumSubscriptions(); got != 2 || h.Subscriptions() != 2 || h.Watchers() != 3 {
		t.Fatalf("3 watchers of 2 instances: %d NATS subscriptions, hub %d/%d", got, h.Subscriptions(), h.Watchers())
	}
	a1.Close()
	a1.Close() // idempotent
	if nc.NumSubscriptions() != 2 {
		t.Fatalf("closing one of two watchers unsubscribed")
	}
	a2.Close()
	if nc.NumSubscriptions() != 1 || h.Subscriptions() != 1 {
		t.Fatalf("the last watcher of world left, still %d subscriptions", nc.NumSubscriptions())
	}
	b.Close()
	if nc.NumSubscriptions() != 0 || h.Watchers() != 0 {
		t.Fatalf("everyone left, still %d subscriptions", nc.NumSubscriptions())
	}
	// Nothing watches: a publish reaches nobody and breaks nothing.
	publishLines(t, nc, "lic", "world", "unseen")
}

func TestHub_FansOutToEveryWatcher(t *testing.T) {
	ns := natstest.Start(t)
	nc := ns.Connect(t)
	pub := ns.Connect(t)
	h := NewHub(nc, testLogger(t))
	w1, _ := h.Watch("lic", "world")
	defer w1.Close()
	w2, _ := h.Watch("lic", "world")
	defer w2.Close()
	other, _ := h.Watch("lic", "ether")
	defer other.Close()
	publishLines(t, pub, "lic", "world", "one", "two")
	publishLines(t, pub, "lic", "world", "three")
	for _, w := range []*Watcher{w1, w2} {
		var got []string
		poll.Until(t, 5*time.Second, func() error {
			lines, dropped := w.Take()
			if dropped != 0 {
				t.Fatalf("dropped %d lines of 3", dropped)
			}
			for _, l := range lines {
				got = append(got, l.Text)
			}
			if len(got) < 3 {
				return fmt.Errorf("got %q", got)
			}
			return nil
		})
		if fmt.Sprint(got) != "[one two three]" {
			t.Fatalf("watcher got %q, want one two three in order", got)
		}
	}
	if lines, _ := other.Take(); len(lines) != 0 {
		t.Fatalf("another instance's watcher got %d lines", len(lines))
	}
}

// A watcher that never takes keeps the newest MaxBufferedLines and counts
// the rest as dropped; one that keeps up beside it loses nothing.
func TestHub_SlowWatcherDropsOldestOthersKeepUp(t *testing.T) {
	ns := natstest.Start(t)
	nc := ns.Connect(t)
	pub := ns.Connect(t)
	h := NewHub(nc, testLogger(t))
	slow, _ := h.Watch("lic", "world")
	defer slow.Close()
	fast, _ := h.Watch("lic", "world")
	defer fast.Close()
	const batches, per = 30, 500 // 15,000 lines: three times the bound
	total := 0
	for i := range batches {
		texts := make([]string, per)
		for j := range texts {
			texts[j] = fmt.Sprintf("line %d", i*per+j)
		}
		publishLines(t, pub, "lic", "world", texts...)
		poll.Until(t, 10*time.Second, func() error { // the fast one keeps up
			lines, dropped := fast.Take()
			if dropped != 0 {
				t.Fatalf("the fast watcher dropped %d", dropped)
			}
			total += len(lines)
			if total < (i+1)*per {
				return fmt.Errorf("fast watcher has %d of %d lines", total, (i+1)*per)
			}
			return nil
		})
	}
	lines, dropped := slow.Take()
	if len(lines) != MaxBufferedLines || dropped != batches*per-MaxBufferedLines {
		t.Fatalf("slow watcher kept %d and dropped %d; want %d and %d", len(lines), dropped, MaxBufferedLines, batches*per-MaxBufferedLines)
	}
	if want := fmt.Sprintf("line %d", batches*per-1); lines[len(lines)-1].Text != want {
		t.Fatalf("slow watcher's newest line is %q, want %q", lines[len(lines)-1].Text, want)
	}
	if h.Dropped() != dropped {
		t.Fatalf("hub counts %d dropped, the watcher %d", h.Dropped(), dropped)
	}
}

func TestWatcher_ByteBound(t *testing.T) {
	w := &Watcher{ready: make(chan struct{}, 1)}
	big := string(make([]byte, 64<<10))
	for range 40 { // 2.5 MiB
		w.push([]wire.ConsoleLine{{Stream: wire.StreamStdout, Text: big}})
	}
	lines, dropped := w.Take()
	if len(lines)*len(big) > MaxBufferedBytes || dropped == 0 || int(dropped)+len(lines) != 40 {
		t.Fatalf("kept %d lines of 64 KiB, dropped %d", len(lines), dropped)
	}
	w.push([]wire.ConsoleLine{{Text: big + big + big + big}}) // one line over the bound is kept
	if lines, _ := w.Take(); len(lines) != 1 {
		t.Fatalf("a single oversized line was not kept")
	}
}

func TestHub_IgnoresMalformedMessages(t *testing.T) {
	ns := natstest.Start(t)
	nc := ns.Connect(t)
	h := NewHub(nc, testLogger(t))
	w, _ := h.Watch("lic", "world")
	defer w.Close()
	for _, bad := range []string{"", "not json", "[1,2]", `{"lines":"x"}`} {
		if err := nc.Publish(wire.ConsoleSubject("lic", "world"), []byte(bad)); err != nil {
			t.Fatal(err)
		}
	}
	publishLines(t, nc, "lic", "world", "good")
	poll.True(t, 5*time.Second, "the good line after the bad ones", func() bool {
		lines, _ := w.Take()
		return len(lines) == 1 && lines[0].Text == "good"
	})
	if h.malformed.Load() != 4 {
		t.Fatalf("counted %d malformed messages, want 4", h.malformed.Load())
	}
}

func TestOverlap(t *testing.T) {
	l := func(texts ...string) []wire.ConsoleLine {
		var out []wire.ConsoleLine
		for _, s := range texts {
			out = append(out, wire.ConsoleLine{Stream: "stdout", Text: s})
		}
		return out
	}
	cases := []struct {
		name          string
		backlog, live []wire.ConsoleLine
		want          int
	}{
		{"none", l("a", "b"), l("c"), 0},
		{"empty backlog", nil, l("a"), 0},
		{"empty live", l("a"), nil, 0},
		{"two shared", l("a", "b", "c"), l("b", "c", "d"), 2},
		{"all live in backlog", l("a", "b", "c"), l("b", "c"), 2},
		{"stream differs", l("a", "b"), []wire.ConsoleLine{{Stream: "stderr", Text: "b"}}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := overlap(tc.backlog, tc.live); got != tc.want {
				t.Fatalf("overlap = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestLinesEventJSON(t *testing.T) {
	ev := linesEvent{Lines: encodeLines([]wire.ConsoleLine{{Stream: "stderr", Text: "a\nb"}, {Stream: "agent", Text: "x"}, {Stream: "stdout", Text: "<b>"}}), Dropped: 3}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"lines":[["e","a\nb"],["a","x"],["o","\u003cb\u003e"]],"dropped":3}`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
}
