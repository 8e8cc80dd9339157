package flagval

import (
	"testing"
	"time"
)

func TestDefault(t *testing.T) {
	cases := []struct {
		name   string
		v, def time.Duration
		want   time.Duration
	}{
		{"zero takes the default", 0, time.Second, time.Second},
		{"negative takes the default", -time.Minute, time.Second, time.Second},
		{"positive is kept", time.Millisecond, time.Second, time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Default(c.v, c.def); got != c.want {
				t.Fatalf("Default(%v, %v) = %v, want %v", c.v, c.def, got, c.want)
			}
		})
	}
	if got := Default(-1, 16); got != 16 {
		t.Fatalf("Default(-1, 16) = %d", got)
	}
}
