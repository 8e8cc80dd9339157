package etherlink_test

import (
	"testing"
	"time"

	"github.com/corrosion/corrosion/worldsrv/etherlink"
)

func TestBackoff_Next_DoublesToTheCap(t *testing.T) {
	b := etherlink.DefaultBackoff
	var got []time.Duration
	var wait time.Duration
	for range 8 {
		wait = b.Next(wait, 0) // every dial fails
		got = append(got, wait)
	}
	want := []time.Duration{1, 2, 4, 8, 16, 30, 30, 30}
	for i := range want {
		if got[i] != want[i]*time.Second {
			t.Fatalf("waits %v, want %v seconds", got, want)
		}
	}
}

func TestBackoff_Next(t *testing.T) {
	b := etherlink.Backoff{Min: time.Second, Max: 30 * time.Second, Stable: 10 * time.Second}
	tests := []struct {
		name        string
		prev, upFor time.Duration
		want        time.Duration
	}{
		{"first failure waits min", 0, 0, time.Second},
		{"second failure doubles", time.Second, 0, 2 * time.Second},
		{"capped at max", 20 * time.Second, 0, 30 * time.Second},
		{"stays at max", 30 * time.Second, 0, 30 * time.Second},
		{"a connection that stayed up resets", 30 * time.Second, 10 * time.Second, time.Second},
		{"a long-lived connection resets", 16 * time.Second, time.Hour, time.Second},
		{"a connection closed at once does not reset", 8 * time.Second, 5 * time.Millisecond, 16 * time.Second},
		{"lost after a first connect with no wait yet", 0, 3 * time.Second, time.Second},
		{"a wait below min becomes min", time.Millisecond, 0, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := b.Next(tt.prev, tt.upFor); got != tt.want {
				t.Fatalf("Next(%v, %v) = %v, want %v", tt.prev, tt.upFor, got, tt.want)
			}
		})
	}
}

func TestConfig_Validate(t *testing.T) {
	tests := []struct {
		name string
		cfg  etherlink.Config
		want string // substring of the error; "" for none
	}{
		{"node only: default address", etherlink.Config{NodeID: 10}, ""},
		{"no node id", etherlink.Config{Addr: "127.0.0.1:5010"}, "node id"},
		{"bad address", etherlink.Config{NodeID: 10, Addr: "nowhere"}, "addr"},
		{"token too large", etherlink.Config{NodeID: 10, Token: make([]byte, 65535)}, "token"},
		{"out bytes below one frame", etherlink.Config{NodeID: 10, OutBytes: 1024}, "out bytes"},
		{"backoff max below min", etherlink.Config{NodeID: 10, Backoff: etherlink.Backoff{Min: time.Minute, Max: time.Second}}, "backoff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.want != "" && (err == nil || !contains(err.Error(), tt.want)):
				t.Fatalf("Validate = %v, want an error naming %q", err, tt.want)
			}
		})
	}
}
