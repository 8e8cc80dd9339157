package ingest

import (
	"errors"
	"testing"
	"time"

	"github.com/corrosion/corrosion/panel/store"
)

func TestPending_CoalescesHostsBoundsEventsAndPutsBack(t *testing.T) {
	p := newPending(Config{MaxPendingHosts: 2, MaxPendingEvents: 3})
	t0 := time.Now()
	hb := func(l string, d time.Duration) store.HeartbeatRow {
		return store.HeartbeatRow{License: l, Received: t0.Add(d)}
	}
	ev := func(i int) store.Event { return store.Event{License: "a", Instance: "w", At: t0.Add(time.Duration(i))} }
	p.addHeartbeat(hb("a", 2), 1)
	p.addHeartbeat(hb("a", 1), 1) // older: coalesced away
	p.addHeartbeat(hb("b", 1), 1)
	if p.admit("c") || !p.admit("a") {
		t.Fatal("admit: a third host must wait, a held one may add")
	}
	if dropped := p.addEvents([]store.Event{ev(1), ev(2), ev(3), ev(4)}, 1); dropped != 1 || p.events[0].At != ev(2).At {
		t.Fatalf("dropped %d, oldest held %v", dropped, p.events[0].At)
	}
	if p.held() != 5 || p.messages["a"] != 6 || p.count != 7 {
		t.Fatalf("held %d, messages %v, count %d", p.held(), p.messages, p.count)
	}
	b := p.take(time.Second)
	if p.held() != 0 || len(b.Heartbeats) != 2 || len(b.Events) != 3 || b.Messages["b"] != 1 {
		t.Fatalf("take: %+v, left %d", b, p.held())
	}
	for _, r := range b.Heartbeats {
		if r.License == "a" && !r.Received.Equal(t0.Add(2)) {
			t.Fatalf("kept the older heartbeat of a")
		}
	}
	// Newer data arrives while the batch fails; putting it back keeps the
	// newer heartbeat and the events in order, oldest dropped.
	p.addHeartbeat(hb("a", 5), 1)
	p.addEvents([]store.Event{ev(5)}, 1)
	if dropped := p.putBack(b); dropped != 1 {
		t.Fatalf("put back dropped %d", dropped)
	}
	if got := p.heartbeats["a"].Received; !got.Equal(t0.Add(5)) {
		t.Fatalf("a's heartbeat went back to %v", got)
	}
	if len(p.events) != 3 || p.events[0].At != ev(3).At || p.events[2].At != ev(5).At || p.messages["a"] != 8 || p.count != 2 {
		t.Fatalf("events %+v messages %v count %d", p.events, p.messages, p.count)
	}
}

func TestConfig_Validate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for name, c := range map[string]Config{
		"negative flush": {FlushEvery: -time.Second},
		"retry max":      {RetryMin: time.Second, RetryMax: time.Millisecond},
		"negative batch": {MaxBatch: -1},
		"sample every":   {SampleEvery: time.Millisecond},
		"bad retention":  {Retention: store.Retention{Samples: time.Hour}},
	} {
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
}
