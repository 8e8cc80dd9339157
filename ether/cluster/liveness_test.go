package cluster

import (
	"errors"
	"testing"
)

// TestDecodeDown: the clean-stop beacon's one decoder, which ether's peers
// and the panel share, takes what a stopping node publishes and refuses a
// subject or body that disagrees.
func TestDecodeDown(t *testing.T) {
	good := `{"node":11,"instance":"p11","started":"2026-01-02T03:04:05Z","sessions":2,"leaving":true}`
	tests := []struct {
		name, subject, data string
		wantErr             bool
	}{
		{"published by a stopping node", "c.node.11.down", good, false},
		{"heartbeat subject", "c.node.11.heartbeat", good, true},
		{"node of another subject", "c.node.12.down", good, true},
		{"node zero", "c.node.0.down", `{"node":0,"leaving":true}`, true},
		{"node over 255", "c.node.256.down", `{"node":0,"leaving":true}`, true},
		{"leading zero", "c.node.011.down", good, true},
		{"bad cluster name", "c*.node.11.down", good, true},
		{"too many tokens", "a.c.node.11.down", good, true},
		{"not leaving", "c.node.11.down", `{"node":11,"instance":"p11"}`, true},
		{"node out of range in the body", "c.node.11.down", `{"node":267,"leaving":true}`, true},
		{"not JSON", "c.node.11.down", `[`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, hb, err := DecodeDown(tt.subject, []byte(tt.data))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && (name != "c" || hb.Node != 11 || hb.Instance != "p11" || !hb.Leaving) {
				t.Fatalf("decoded %q %+v", name, hb)
			}
		})
	}
	if _, _, err := DecodeDown("c.node.11.down", []byte(`{"node":12,"leaving":true}`)); !errors.Is(err, ErrNotBeacon) {
		t.Fatalf("mismatched node: %v, want ErrNotBeacon", err)
	}
}

// TestDecodeDown_ReadsWhatANodePublishes: the bytes the node's own goodbye
// publishes decode.
func TestDecodeDown_ReadsWhatANodePublishes(t *testing.T) {
	l := &liveness{m: &Member{cfg: Config{NodeID: 42}, instance: "me", subj: subjects{prefix: "ether"}}}
	name, hb, err := DecodeDown(l.m.subj.goodbye(42), l.beat(true))
	if err != nil || name != "ether" || hb.Node != 42 || hb.Instance != "me" {
		t.Fatalf("DecodeDown(own goodbye) = %q %+v %v", name, hb, err)
	}
}

func FuzzDecodeDown(f *testing.F) {
	f.Add("ether.node.10.down", []byte(`{"node":10,"instance":"x","leaving":true}`))
	f.Add("ether.node.10.down", []byte(`{"node":10}`))
	f.Add("ether.node.1.heartbeat", []byte(`{}`))
	f.Fuzz(func(t *testing.T, subject string, data []byte) {
		name, hb, err := DecodeDown(subject, data)
		if err != nil {
			return
		}
		if subject != name+".node."+itoa(hb.Node)+".down" || hb.Node == 0 || !hb.Leaving {
			t.Fatalf("accepted %q %q as %q %+v", subject, data, name, hb)
		}
	})
}
