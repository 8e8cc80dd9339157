package ui

import (
	"testing"
	"time"
)

func TestSparkPoints(t *testing.T) {
	cases := []struct {
		name string
		vals []float64
		max  float64
		want string
	}{
		{"none", nil, 100, ""},
		{"one", []float64{50}, 100, "0.0,10.0"},
		{"clamped to the box", []float64{-5, 0, 100, 150}, 100, "0.0,19.0 26.7,19.0 53.3,1.0 80.0,1.0"},
		{"own max", []float64{1, 2}, 0, "0.0,10.0 80.0,1.0"},
		{"all zero", []float64{0, 0}, 0, "0.0,19.0 80.0,19.0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := SparkPoints(c.vals, c.max, 80, 20); got != c.want {
				t.Fatalf("SparkPoints = %q, want %q", got, c.want)
			}
		})
	}
}

func TestAgo(t *testing.T) {
	now := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{
		2 * time.Second: "just now", 45 * time.Second: "40 s ago", 3*time.Minute + 59*time.Second: "3 min ago",
		5 * time.Hour: "5 h ago", 72 * time.Hour: "3 d ago",
	} {
		if got := Ago(now.Add(-d), now); got != want {
			t.Errorf("Ago(%v) = %q, want %q", d, got, want)
		}
	}
}
