package server

import (
	"fmt"
	"sync"
	"time"
)

// DeniedAction is the audit action of a refused request to a route that
// has no audit action of its own (a read: another license's host page,
// console stream or files). Its row names the user, the request
// ("GET /hosts/x/console/stream") as target, and the reason.
const DeniedAction = "denied"

// Denied reads are written at most deniedBurst at once and deniedPerMinute
// a minute per caller (user, or address when anonymous), so a script
// looping on a refused URL adds rows no faster than that; the rows it
// skipped are counted on the caller's next written row.
const (
	deniedBurst     = 30
	deniedPerMinute = 30
	deniedMaxKeys   = 10_000 // callers remembered; full buckets go first
)

// denials is the per-caller token bucket of DeniedAction rows. Safe for
// concurrent use.
type denials struct {
	mu      sync.Mutex
	buckets map[string]*denialBucket // guarded by mu
}

// denialBucket is one caller's budget; guarded by denials.mu.
type denialBucket struct {
	tokens  float64   // rows that may be written now
	at      time.Time // when tokens was last refilled
	skipped int       // rows not written since the last written one
	since   time.Time // the first skipped row's time
}

func newDenials() *denials { return &denials{buckets: map[string]*denialBucket{}} }

// take reports whether a denied row of caller may be written at now, and
// if so a note on the rows skipped before it ("" when none).
func (d *denials) take(now time.Time, caller string) (ok bool, note string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buckets[caller]
	if b == nil {
		if len(d.buckets) >= deniedMaxKeys {
			d.evictLocked(now)
		}
		b = &denialBucket{tokens: deniedBurst, at: now}
		d.buckets[caller] = b
	}
	b.tokens = min(deniedBurst, b.tokens+now.Sub(b.at).Minutes()*deniedPerMinute)
	b.at = now
	if b.tokens < 1 {
		if b.skipped == 0 {
			b.since = now
		}
		b.skipped++
		return false, ""
	}
	b.tokens--
	if b.skipped > 0 {
		note = fmt.Sprintf("%d more denied requests not written since %s", b.skipped, b.since.UTC().Format(time.TimeOnly))
		b.skipped = 0
	}
	return true, note
}

// evictLocked drops the callers whose bucket has refilled (as good as
// new); when none has, an arbitrary one (its skipped count is lost).
func (d *denials) evictLocked(now time.Time) {
	for k, b := range d.buckets {
		if b.skipped == 0 && b.tokens+now.Sub(b.at).Minutes()*deniedPerMinute >= deniedBurst {
			delete(d.buckets, k)
		}
	}
	for k := range d.buckets {
		if len(d.buckets) < deniedMaxKeys {
			break
		}
		delete(d.buckets, k)
	}
}
