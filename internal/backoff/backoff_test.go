package backoff

import (
	"math"
	"testing"
	"time"
)

func TestDoubled(t *testing.T) {
	cases := []struct {
		name        string
		base, limit time.Duration
		n           int
		want        time.Duration
	}{
		{"first", 5 * time.Second, 10 * time.Minute, 0, 5 * time.Second},
		{"third", 5 * time.Second, 10 * time.Minute, 2, 20 * time.Second},
		{"just under the cap", time.Minute, 16 * time.Minute, 4, 16 * time.Minute},
		{"capped", time.Minute, 15 * time.Minute, 4, 15 * time.Minute},
		{"far past the cap", time.Second, 30 * time.Second, math.MaxInt, 30 * time.Second},
		{"cap at the largest duration", time.Second, math.MaxInt64, 1000, math.MaxInt64},
		{"negative n", time.Second, time.Minute, -3, time.Second},
		{"base above the cap", time.Hour, time.Minute, 0, time.Minute},
		{"no base", 0, time.Minute, 5, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Doubled(tc.base, tc.limit, tc.n); got != tc.want {
				t.Fatalf("Doubled(%v, %v, %d) = %v, want %v", tc.base, tc.limit, tc.n, got, tc.want)
			}
		})
	}
}
