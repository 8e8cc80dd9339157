package sleep

import (
	"context"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want bool
	}{
		{"waits", context.Background(), time.Millisecond, true},
		{"nothing to wait", context.Background(), 0, true},
		{"in the past", context.Background(), -time.Hour, true},
		{"context ended", ended, time.Hour, false},
		{"context ended, nothing to wait", ended, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			if got := For(c.ctx, c.d); got != c.want {
				t.Fatalf("For(%v) = %v, want %v", c.d, got, c.want)
			}
			if took := time.Since(start); c.want && took < c.d || !c.want && took > time.Minute {
				t.Fatalf("For(%v) took %v", c.d, took)
			}
		})
	}
}

// A context that ends during the wait ends it.
func TestFor_ContextEndsDuringWait(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if For(ctx, time.Hour) {
		t.Fatal("For returned true after its context ended")
	}
}

func TestUntil(t *testing.T) {
	if !Until(context.Background(), time.Now().Add(time.Millisecond)) {
		t.Fatal("Until a near instant = false")
	}
	if !Until(context.Background(), time.Now().Add(-time.Hour)) {
		t.Fatal("Until a past instant = false")
	}
}
