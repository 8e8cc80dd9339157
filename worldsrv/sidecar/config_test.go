package sidecar

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/flagval"
)

func TestConfig_Validate(t *testing.T) {
	good := Config{NodeID: 10}
	tests := []struct {
		name string
		mut  func(*Config)
		want string // "" valid, else a word of the error
	}{
		{"defaults", func(*Config) {}, ""},
		{"no node id", func(c *Config) { c.NodeID = 0 }, "NodeID"},
		{"port too big", func(c *Config) { c.Port = 70000 }, "Port"},
		{"negative db port", func(c *Config) { c.DB.Port = -1 }, "DB.Port"},
		{"negative migrate timeout", func(c *Config) { c.MigrateTimeout = -1 }, "MigrateTimeout"},
		{"negative stop timeout", func(c *Config) { c.StopTimeout = -1 }, "StopTimeout"},
		{"empty nats url", func(c *Config) { c.Cluster = []string{"nats://a:4222", " "} }, "Cluster"},
		{"comma in a nats url", func(c *Config) { c.Cluster = []string{"nats://a:4222,nats://b:4222"} }, "Cluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.mut(&c)
			err := c.Validate()
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("Validate() = %v, want an error naming %q", err, tt.want)
			}
		})
	}
}

func TestConfig_Environment(t *testing.T) {
	c := Config{NodeID: 11, DB: flagval.DB{Host: "db", Port: 5433, Name: "world", User: "u", Pass: "p"},
		Cluster: []string{"nats://a:4222", "nats://b:4222"}, LinkToken: "tok",
		Env: map[string]string{"RS_LOG_LEVEL": "debug", "RS_NODE_ID": "99"}}
	want := map[string]string{"RS_NODE_ID": "11", "RS_ETHER_PORT": "5011", "RS_DB_HOST": "db", "RS_DB_PORT": "5433",
		"RS_DB_NAME": "world", "RS_DB_USER": "u", "RS_DB_PASS": "p", "RS_CLUSTER_HOSTS": "nats://a:4222,nats://b:4222",
		"RS_LINK_TOKEN": "tok", "RS_LOG_LEVEL": "debug"}
	got := c.environment()
	if len(got) != len(want) {
		t.Errorf("environment has %d variables, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// Unset settings are left to ether's defaults, not passed empty.
	bare := Config{NodeID: 1, Port: 6000}.environment()
	if len(bare) != 2 || bare["RS_ETHER_PORT"] != "6000" {
		t.Errorf("bare environment %v, want only RS_NODE_ID and RS_ETHER_PORT=6000", bare)
	}
}

func TestFindBinary(t *testing.T) {
	dir := t.TempDir()
	name := "ether"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	fake := filepath.Join(dir, name)
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := findBinary(fake); err != nil || got != fake {
		t.Fatalf("findBinary(%s) = %q, %v", fake, got, err)
	}
	if _, err := findBinary(dir); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Fatalf("findBinary(a directory) = %v", err)
	}
	t.Setenv("PATH", dir)
	if got, err := findBinary(""); err != nil || got != fake {
		t.Fatalf("findBinary(\"\") with ether on PATH = %q, %v", got, err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := findBinary(""); err == nil || !strings.Contains(err.Error(), "on PATH") {
		t.Fatalf("findBinary(\"\") with no ether anywhere = %v", err)
	}
}

func TestNew_BadConfigIsAnError(t *testing.T) {
	if _, err := New(Config{}); err == nil || !strings.Contains(err.Error(), "NodeID") {
		t.Fatalf("New(Config{}) = %v", err)
	}
	if _, err := New(Config{NodeID: 1, Binary: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Fatal("New with a missing binary succeeded")
	}
}
