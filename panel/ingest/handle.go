package ingest

import (
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/panel/store"
)

// maxLogged bounds the malformed kinds and unknown licenses logged once.
const maxLogged = 1000

func (in *Ingester) onHeartbeat(m *nats.Msg) {
	r, err := DecodeHeartbeat(m.Subject, m.Data, time.Now())
	if in.decoded(KindHeartbeat, err) {
		in.hold(r.License, func(p *pending) { p.addHeartbeat(r, 1) })
	}
}

func (in *Ingester) onGoingOffline(m *nats.Msg) {
	license, err := DecodeGoingOffline(m.Subject)
	if in.decoded(KindGoingOffline, err) {
		now := time.Now()
		in.hold(license, func(p *pending) { p.addBeacon(license, now, 1) })
	}
}

func (in *Ingester) onStatus(m *nats.Msg) {
	e, err := DecodeStatus(m.Subject, m.Data, time.Now())
	if !in.decoded(KindStatus, err) {
		return
	}
	in.hold(e.License, func(p *pending) {
		if n := p.addEvents([]store.Event{e}, 1); n > 0 {
			in.metrics.dropped.WithLabelValues(dropPendingFull).Add(float64(n))
		}
	})
}

// hold adds a decoded message to the pending batch (or drops it when the
// pending hosts are at their bound) and wakes the flusher when the batch
// is full.
func (in *Ingester) hold(license string, add func(*pending)) {
	in.mu.Lock()
	ok := in.pending.admit(license)
	if ok {
		add(in.pending)
	}
	full := in.pending.count >= in.cfg.MaxBatch
	in.mu.Unlock()
	if !ok {
		in.metrics.dropped.WithLabelValues(dropPendingFull).Inc()
		return
	}
	if full {
		select {
		case in.kick <- struct{}{}:
		default:
		}
	}
}

// decoded counts a message of kind once: as malformed when its decoder
// failed with err (reporting false: drop it), else as taken.
func (in *Ingester) decoded(kind Kind, err error) bool {
	if err != nil {
		in.malformed(kind, err)
		return false
	}
	in.metrics.messages.WithLabelValues(string(kind)).Inc()
	return true
}

// malformed counts a bad message, and logs the first of each kind.
func (in *Ingester) malformed(kind Kind, err error) {
	in.metrics.malformed.WithLabelValues(string(kind)).Inc()
	if in.firstTime("malformed " + string(kind)) {
		in.log.Warn("ingest: malformed message dropped (further ones of this kind are only counted)", "kind", kind, "err", err)
	}
}

// firstTime reports whether key is seen for the first time (bounded).
func (in *Ingester) firstTime(key string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.logged[key] || len(in.logged) >= maxLogged {
		return false
	}
	in.logged[key] = true
	return true
}

func (in *Ingester) pendingCount() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.pending.held()
}
