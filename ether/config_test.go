package ether_test

import (
	"errors"
	"flag"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether"
)

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		env   []string
		check func(t *testing.T, c ether.Config)
		err   string // substring of the error; empty: no error
	}{
		{name: "defaults", check: func(t *testing.T, c ether.Config) {
			if c.NodeID != 10 || c.Port() != 5010 || c.ListenAddr() != "127.0.0.1:5010" || c.ClusterName != "ether" ||
				!slices.Equal(c.ClusterHosts, []string{"nats://127.0.0.1:4222"}) || c.LeaseTTL != 10*time.Second ||
				c.NodeTimeout != 3*time.Second || c.MetricsListen != "" {
				t.Fatalf("%+v", c)
			}
			if c.DB.URL() != "postgres://postgres:password@localhost:5432/postgres" {
				t.Fatalf("DSN %s", c.DB.URL())
			}
		}},
		{name: "seed environment", env: []string{"RS_NODE_ID=11", "RS_DB_HOST=db.internal", "RS_DB_PORT=6543", "RS_DB_NAME=rsserver",
			"RS_DB_USER=app", "RS_DB_PASS=p@ss word", "RS_CLUSTER_HOSTS=nats://10.0.0.1:4222, 10.0.0.2:4222"},
			check: func(t *testing.T, c ether.Config) {
				if c.NodeID != 11 || c.Port() != 5011 {
					t.Fatalf("node %d port %d", c.NodeID, c.Port())
				}
				if !slices.Equal(c.ClusterHosts, []string{"nats://10.0.0.1:4222", "nats://10.0.0.2:4222"}) {
					t.Fatalf("hosts %v", c.ClusterHosts)
				}
				u, err := url.Parse(c.DB.URL())
				if pass, _ := u.User.Password(); err != nil || pass != "p@ss word" || u.Host != "db.internal:6543" || u.Path != "/rsserver" {
					t.Fatalf("DSN %s: %v", c.DB.URL(), err)
				}
			}},
		{name: "flags win over the environment", env: []string{"RS_NODE_ID=11", "RS_ETHER_PORT=6000"},
			args: []string{"--node-id", "12", "--ether-port=7000", "--cluster-name", "red", "--lease-ttl", "2s", "--metrics-listen", "127.0.0.1:9100"},
			check: func(t *testing.T, c ether.Config) {
				if c.NodeID != 12 || c.Port() != 7000 || c.ClusterName != "red" || c.LeaseTTL != 2*time.Second || c.MetricsListen != "127.0.0.1:9100" {
					t.Fatalf("%+v", c)
				}
			}},
		{name: "bad node id in the environment", env: []string{"RS_NODE_ID=300"}, err: "RS_NODE_ID"},
		{name: "node id zero", args: []string{"--node-id=0"}, err: "node-id"},
		{name: "bad port", args: []string{"--ether-port", "70000"}, err: "ether-port"},
		{name: "bad duration", env: []string{"RS_LEASE_TTL=soon"}, err: "RS_LEASE_TTL"},
		{name: "cluster name with a dot", args: []string{"--cluster-name", "a.b"}, err: "cluster name"},
		{name: "no NATS", env: []string{"RS_CLUSTER_HOSTS= , "}, err: "cluster hosts"},
		{name: "not a NATS scheme", env: []string{"RS_CLUSTER_HOSTS=http://10.0.0.1:4222"}, err: "cluster hosts"},
		{name: "timeout under the heartbeat", args: []string{"--heartbeat", "5s"}, err: "node timeout"},
		{name: "bad metrics address", args: []string{"--metrics-listen", "nine"}, err: "metrics listen"},
		{name: "bad log level", args: []string{"--log-level", "loud"}, err: "log level"},
		{name: "stray argument", args: []string{"extra"}, err: "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ether.LoadConfig(tt.args, envOf(tt.env...))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ether.ErrConfig) {
					t.Fatalf("err = %v, want one naming %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
	if _, err := ether.LoadConfig([]string{"-h"}, envOf()); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
}

func FuzzLoadConfig(f *testing.F) {
	f.Add("--node-id 12 --ether-port 7000", "RS_DB_HOST=db\nRS_CLUSTER_HOSTS=nats://a:1,b:2")
	f.Add("--lease-ttl=1ms --heartbeat 1h", "RS_NODE_ID=255")
	f.Add("", "RS_DB_PORT=-1\nRS_ETHER_PORT=x")
	f.Add("--cluster-hosts :::: --metrics-listen [::1]:0", "")
	f.Fuzz(func(t *testing.T, args, env string) {
		c, err := ether.LoadConfig(strings.Fields(args), envOf(strings.Split(env, "\n")...))
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("LoadConfig accepted what Validate refuses: %v", err)
		}
		if p := c.Port(); p <= 0 || p > 65535 {
			t.Fatalf("port %d", p)
		}
		if _, err := url.Parse(c.DB.URL()); err != nil {
			t.Fatalf("DSN %q: %v", c.DB.URL(), err)
		}
	})
}

// TestLoadConfig_Agent: the agent's CORROSION_LICENSE_ID and
// CORROSION_INSTANCE_ID become the health snapshot's agent; an instance id
// alone, or an id that cannot be the agent's, is refused by name.
func TestLoadConfig_Agent(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	c, err := ether.LoadConfig(nil, env(map[string]string{"CORROSION_LICENSE_ID": "demo", "CORROSION_INSTANCE_ID": "ether10"}))
	if a := c.Agent(); err != nil || a == nil || a.License != "demo" || a.Instance != "ether10" {
		t.Fatalf("agent %+v, %v", a, err)
	}
	if c, err := ether.LoadConfig(nil, env(nil)); err != nil || c.Agent() != nil {
		t.Fatalf("no agent: %+v, %v", c.Agent(), err)
	}
	for name, kv := range map[string]map[string]string{
		"instance alone": {"CORROSION_INSTANCE_ID": "ether10"},
		"no instance":    {"CORROSION_LICENSE_ID": "demo"},
		"bad license":    {"CORROSION_LICENSE_ID": "de.mo", "CORROSION_INSTANCE_ID": "ether10"},
	} {
		if _, err := ether.LoadConfig(nil, env(kv)); err == nil || !strings.Contains(err.Error(), "CORROSION_LICENSE_ID") {
			t.Errorf("%s: %v, want an error naming CORROSION_LICENSE_ID", name, err)
		}
	}
}
