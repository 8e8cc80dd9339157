package cluster

import "testing"

// TestConfig_ValidateNeverChangesTheConfig: New applies the defaults;
// Validate only looks.
func TestConfig_ValidateNeverChangesTheConfig(t *testing.T) {
	c := Config{URLs: []string{"nats://x"}, NodeID: 10}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Name != "" || c.LeaseTTL != 0 || c.RequestTimeout != 0 || c.Workers != 0 {
		t.Fatalf("Validate changed the config: %+v", c)
	}
}
