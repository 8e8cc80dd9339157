package server

import (
	"strings"
	"testing"
	"time"
)

func TestDenials_BudgetPerCaller(t *testing.T) {
	d := newDenials()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range deniedBurst {
		if ok, note := d.take(now, "user:1"); !ok || note != "" {
			t.Fatalf("row %d: ok=%v note=%q", i, ok, note)
		}
	}
	for range 5 {
		if ok, _ := d.take(now, "user:1"); ok {
			t.Fatal("a row over the burst was written")
		}
	}
	if ok, _ := d.take(now, "user:2"); !ok {
		t.Fatal("another caller shares the first one's budget")
	}
	later := now.Add(time.Minute / deniedPerMinute) // one token back
	ok, note := d.take(later, "user:1")
	if !ok || !strings.Contains(note, "5 more denied requests not written since 03:04:05") {
		t.Fatalf("after the refill: ok=%v note=%q", ok, note)
	}
	if ok, _ := d.take(later, "user:1"); ok {
		t.Fatal("the refill gave more than one row")
	}
}

func TestDenials_BoundedCallers(t *testing.T) {
	d := newDenials()
	now := time.Now()
	for i := range deniedMaxKeys + 100 {
		d.take(now, "user:"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+time.Duration(i).String())
	}
	if n := len(d.buckets); n > deniedMaxKeys {
		t.Fatalf("%d callers remembered, want at most %d", n, deniedMaxKeys)
	}
}
