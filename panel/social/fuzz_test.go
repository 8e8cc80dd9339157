package social

import (
	"os"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/health"
	"github.com/corrosion/corrosion/panel/auth"
)

// FuzzObserve: whatever ether/health's decoder accepts, the collector takes
// and the page builds (for an admin and for an operator) without a panic;
// what it refuses, the collector refuses too.
func FuzzObserve(f *testing.F) {
	doc, err := os.ReadFile("../../ether/health/testdata/snapshot.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add("ether.health.10", doc)
	f.Add("ether.health.10", []byte(`{"node":10,"cluster":"ether","world_link":"down","agent":{"license_id":"demo","instance_id":"ether10"},"world":{"license_id":"demo","instance_id":"world10","public_url":"http://h:8080/client?world=1"}}`))
	f.Add("ether.node.10.down", []byte(`{"node":10,"instance":"x","leaving":true}`))
	f.Fuzz(func(t *testing.T, subject string, data []byte) {
		now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
		c := NewCollector(nil)
		err := c.Observe(subject, data, now)
		if _, derr := health.Decode(subject, data); derr == nil && err != nil {
			t.Fatalf("the collector refused what the decoder accepted: %v", err)
		}
		for _, p := range []*auth.Principal{{Name: "root", Role: auth.RoleAdmin}, {Name: "op", Role: auth.RoleOperator, Licenses: []string{"demo"}}} {
			_ = Build(c.Nodes(now), nil, p, now)
		}
	})
}
