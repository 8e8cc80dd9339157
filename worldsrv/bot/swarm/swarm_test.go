package swarm

import (
	"strings"
	"testing"
	"time"
)

func TestConfig_Validate_NamesTheField(t *testing.T) {
	good := Config{Addrs: []string{"127.0.0.1:1"}, Bots: 10, Prefix: "bot", Password: "pw", Duration: time.Second}
	if err := good.Validate(); err != nil {
		t.Fatalf("good config: %v", err)
	}
	for _, tc := range []struct {
		name, field string
		change      func(*Config)
	}{
		{"no addr", "addr", func(c *Config) { c.Addrs = nil }},
		{"no bots", "bots", func(c *Config) { c.Bots = 0 }},
		{"too many bots", "bots", func(c *Config) { c.Bots = MaxBots + 1 }},
		{"name too long", "prefix", func(c *Config) { c.Prefix = "abcdefghijkl" }},
		{"bad prefix", "prefix", func(c *Config) { c.Prefix = "b-t" }},
		{"no password", "password", func(c *Config) { c.Password = "" }},
		{"friends ≥ bots", "friends", func(c *Config) { c.Friends = 10 }},
		{"negative friends wait", "friends-online", func(c *Config) { c.FriendsOnline = -time.Second }},
		{"negative rate", "pm-rate", func(c *Config) { c.PMRate = -1 }},
		{"no duration", "duration", func(c *Config) { c.Duration = 0 }},
		{"negative ramp", "ramp", func(c *Config) { c.Ramp = -1 }},
		{"negative walk reach", "walk-reach", func(c *Config) { c.WalkReach = -1 }},
		{"negative login timeout", "login-timeout", func(c *Config) { c.LoginTimeout = -1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.change(&c)
			err := c.Validate()
			if err == nil || !strings.HasPrefix(err.Error(), tc.field+":") {
				t.Fatalf("Validate: %v, want an error about %s", err, tc.field)
			}
		})
	}
}

func TestPercentileMs_NearestRank(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, v := range n {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	for _, tc := range []struct {
		name string
		s    []time.Duration
		q    float64
		want float64
	}{
		{"empty", nil, 0.5, 0},
		{"one", ms(7), 0.99, 7},
		{"median of unsorted", ms(5, 1, 3, 2, 4), 0.5, 3},
		{"p99 of 100", ms(func() []int {
			v := make([]int, 100)
			for i := range v {
				v[i] = 100 - i
			}
			return v
		}()...), 0.99, 99},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := percentileMs(tc.s, tc.q); got != tc.want {
				t.Fatalf("percentileMs = %v, want %v", got, tc.want)
			}
		})
	}
}
