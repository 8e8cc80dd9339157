package liveness

import (
	"testing"
	"time"
)

func TestSilent(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		after time.Duration
		want  bool
	}{
		{"just heard", 0, false},
		{"two intervals", 20 * time.Second, false},
		{"exactly three intervals", 30 * time.Second, false},
		{"past three intervals", 30*time.Second + time.Nanosecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Silent(t0, 10*time.Second, t0.Add(tc.after)); got != tc.want {
				t.Fatalf("Silent after %v = %v, want %v", tc.after, got, tc.want)
			}
		})
	}
}
