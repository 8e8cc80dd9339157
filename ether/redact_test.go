package ether_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/ether"
)

// TestConfig_ClusterHostsNeverShowPasswords: RS_CLUSTER_HOSTS with
// credentials, a password holding an unescaped '/' included, is shown
// redacted in the validation error, the log line's value and the flag
// defaults.
func TestConfig_ClusterHostsNeverShowPasswords(t *testing.T) {
	_, err := ether.LoadConfig(nil, envOf("RS_CLUSTER_HOSTS=nats://u:s3cr/et-tail@h:4222"))
	if err == nil || !strings.Contains(err.Error(), "RS_CLUSTER_HOSTS") {
		t.Fatalf("want a cluster hosts error, got %v", err)
	}
	if strings.Contains(err.Error(), "s3cr") || strings.Contains(err.Error(), "et-tail") {
		t.Errorf("error shows the password: %v", err)
	}
	c, err := ether.LoadConfig(nil, envOf("RS_CLUSTER_HOSTS=nats://u:s3cret@a:4222, nats://b:4222"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.ClusterHostsRedacted(); got != "nats://xxxxx@a:4222,nats://b:4222" {
		t.Errorf("ClusterHostsRedacted = %q", got)
	}
	var out bytes.Buffer
	ether.NewFlagSet(&c, &out).PrintDefaults()
	if strings.Contains(out.String(), "s3cret") || !strings.Contains(out.String(), "xxxxx@a:4222") {
		t.Errorf("flag defaults show the password or not the hosts:\n%s", out.String())
	}
}
