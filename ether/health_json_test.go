package ether_test

import (
	"encoding/json"
	"testing"

	"github.com/corrosion/corrosion/ether"
)

// TestNodeIDs_MarshalAsNumbers: peers are a JSON array of numbers (a plain
// []uint8 would be the base64 string "Cw==").
func TestNodeIDs_MarshalAsNumbers(t *testing.T) {
	tests := []struct {
		name string
		ids  ether.NodeIDs
		want string
	}{
		{"none", nil, `[]`},
		{"empty", ether.NodeIDs{}, `[]`},
		{"two", ether.NodeIDs{11, 12}, `[11,12]`},
		{"extremes", ether.NodeIDs{1, 255}, `[1,255]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(ether.Health{Peers: tt.ids})
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(b, &raw); err != nil {
				t.Fatal(err)
			}
			if string(raw["peers"]) != tt.want {
				t.Fatalf("peers = %s, want %s", raw["peers"], tt.want)
			}
			var back ether.Health
			if err := json.Unmarshal(b, &back); err != nil || len(back.Peers) != len(tt.ids) {
				t.Fatalf("round trip: %v, %v", back.Peers, err)
			}
		})
	}
}
