package ingest

import (
	"time"

	"github.com/corrosion/corrosion/panel/store"
)

// pending is what ingest holds between flushes, and while Postgres is down.
// It is bounded by hosts, not messages: a host's heartbeats coalesce into
// its newest (the latest state is what an operator sees; a missed sample
// is a gap in a chart), beacons coalesce likewise, and status events (the
// timeline) are kept up to MaxPendingEvents, dropping the oldest beyond.
// A license beyond MaxPendingHosts is dropped and counted. Not safe for
// concurrent use: the Ingester's mu guards it.
type pending struct {
	maxHosts  int // immutable after newPending
	maxEvents int // immutable after newPending

	heartbeats map[string]store.HeartbeatRow // guarded by Ingester.mu: each host's newest
	beacons    map[string]time.Time          // guarded by Ingester.mu: each host's newest
	events     []store.Event                 // guarded by Ingester.mu: oldest first
	messages   map[string]int64              // guarded by Ingester.mu: per license, coalesced ones included
	count      int                           // guarded by Ingester.mu: messages since the last take
}

func newPending(cfg Config) *pending {
	return &pending{
		maxHosts: cfg.MaxPendingHosts, maxEvents: cfg.MaxPendingEvents,
		heartbeats: map[string]store.HeartbeatRow{}, beacons: map[string]time.Time{}, messages: map[string]int64{},
	}
}

// admit reports whether a message of license may be held: a license
// already held always may; a new one only below maxHosts.
func (p *pending) admit(license string) bool {
	if _, ok := p.messages[license]; ok {
		return true
	}
	return len(p.messages) < p.maxHosts
}

// addHeartbeat keeps the newer of r and the held heartbeat of its host.
func (p *pending) addHeartbeat(r store.HeartbeatRow, n int64) {
	if old, ok := p.heartbeats[r.License]; !ok || old.Received.Before(r.Received) {
		p.heartbeats[r.License] = r
	}
	p.messages[r.License] += n
	p.count++
}

func (p *pending) addBeacon(license string, at time.Time, n int64) {
	if old, ok := p.beacons[license]; !ok || old.Before(at) {
		p.beacons[license] = at
	}
	p.messages[license] += n
	p.count++
}

// addEvents appends events (held ones first: they are older), dropping the
// oldest beyond maxEvents; it returns how many were dropped.
func (p *pending) addEvents(evs []store.Event, n int64) (dropped int) {
	for _, e := range evs {
		p.messages[e.License] += n
	}
	p.events = append(p.events, evs...)
	p.count += len(evs)
	if over := len(p.events) - p.maxEvents; over > 0 {
		p.events = append(p.events[:0], p.events[over:]...)
		return over
	}
	return 0
}

// take empties p into a batch.
func (p *pending) take(sampleEvery time.Duration) store.Batch {
	b := store.Batch{Events: p.events, Messages: p.messages, SampleEvery: sampleEvery}
	for _, r := range p.heartbeats {
		b.Heartbeats = append(b.Heartbeats, r)
	}
	for l, at := range p.beacons {
		b.Beacons = append(b.Beacons, store.Beacon{License: l, At: at})
	}
	p.heartbeats, p.beacons, p.events, p.messages, p.count = map[string]store.HeartbeatRow{}, map[string]time.Time{}, nil, map[string]int64{}, 0
	return b
}

// putBack returns a batch that could not be written: older than anything
// held since, so held heartbeats and beacons win and its events go first.
// It returns how many events were dropped over the bound.
func (p *pending) putBack(b store.Batch) (dropped int) {
	count := p.count
	for _, r := range b.Heartbeats {
		p.addHeartbeat(r, 0)
	}
	for _, bc := range b.Beacons {
		p.addBeacon(bc.License, bc.At, 0)
	}
	for l, n := range b.Messages {
		p.messages[l] += n
	}
	held := p.events
	p.events = nil
	dropped = p.addEvents(b.Events, 0)
	dropped += p.addEvents(held, 0)
	p.count = count
	return dropped
}

// held is how many rows p holds (hosts' heartbeats, beacons, events).
func (p *pending) held() int { return len(p.heartbeats) + len(p.beacons) + len(p.events) }
