package config_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/agent"
	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

// The shipped example configs (packaging/examples), relative to this
// package and to the repository root.
const (
	repoRoot       = "../.."
	exampleProd    = "packaging/examples/agent.toml"
	exampleLocal   = "packaging/examples/agent-local.toml"
	exampleLicense = "local"
)

// TestShippedExample_Production: the production template parses once its
// host paths exist and its secrets are set, names every key the agent
// knows, and refuses to load while a secret is unset.
func TestShippedExample_Production(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, exampleProd))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, d := range []string{"srv/ether10", "srv/world10", "bin", "etc"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, exe := range []string{"bin/ether", "bin/worldsrv"} {
		if err := os.WriteFile(filepath.Join(dir, exe), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"etc/agent.creds", "etc/nats-ca.pem"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	d := filepath.ToSlash(dir)
	s := strings.NewReplacer("/srv/corrosion/", d+"/srv/", "/usr/local/bin/", d+"/bin/",
		"/etc/corrosion/", d+"/etc/").Replace(string(data))
	secrets := map[string]string{"RS_DB_PASS": "db-secret", "WORLD10_RCON_PASSWORD": "rcon-secret"}
	c, err := config.Parse([]byte(s), lookup(secrets))
	if err != nil {
		t.Fatalf("%s does not parse:\n%v", exampleProd, err)
	}
	if w := c.Instance("world10"); w == nil || w.RCON == nil || w.RCON.Password != "rcon-secret" {
		t.Errorf("world10's rcon password is not taken from the environment: %+v", w)
	}
	order, err := c.StartOrder()
	if err != nil || len(order) != len(c.Instances) || order[0].ID != "ether10" {
		t.Errorf("start order %v, %v: want ether10 first", order, err)
	}
	delete(secrets, "WORLD10_RCON_PASSWORD")
	if _, err := config.Parse([]byte(s), lookup(secrets)); err == nil ||
		!strings.Contains(err.Error(), "WORLD10_RCON_PASSWORD") {
		t.Errorf("an unset secret was not named: %v", err)
	}
	for _, typ := range []any{config.Agent{}, config.Probe{}, config.Instance{}, config.RCON{}, config.Files{}} {
		rt := reflect.TypeOf(typ)
		for i := range rt.NumField() {
			tag := rt.Field(i).Tag.Get("toml")
			if tag != "" && tag != "-" && !strings.Contains(s, "\n"+tag+" =") && !strings.Contains(s, "."+tag+"]") {
				t.Errorf("%s does not show %s.%s", exampleProd, rt.Name(), tag)
			}
		}
	}
}

// TestShippedExample_LocalRunsAsShipped loads the local demo config from
// the repository root exactly as the quick start does and drives it over
// NATS: ping, the autostarted ticker's console, start/send/stop of echo.
// Only the NATS URL and the state directory are pointed at the test's own
// (and allow_root is set when the test runs as root).
func TestShippedExample_LocalRunsAsShipped(t *testing.T) {
	t.Chdir(repoRoot)
	c, err := config.Load(exampleLocal)
	if err != nil {
		t.Fatalf("the local example does not load as shipped:\n%v", err)
	}
	if c.Agent.LicenseID != exampleLicense {
		t.Fatalf("license %q: the quick start uses %q", c.Agent.LicenseID, exampleLicense)
	}
	ns := natstest.Start(t)
	c.Agent.NATSURL, c.Agent.StateDir = ns.URL(), t.TempDir()
	// As root (CI) the demo needs allow_root, which the file leaves
	// commented out for people running it as themselves.
	c.Agent.AllowRoot = os.Geteuid() == 0
	a, err := agent.New(c, slog.New(slog.NewTextHandler(tWriter{t}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	nc := ns.Connect(t)
	t.Cleanup(func() {
		for _, id := range []string{"ticker", "echo"} { // games outlive the agent: stop them
			_, _ = request(nc, "corrosion.local."+id+".cmd", `{"func":"kill","wait":true}`)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent run: %v", err)
		}
	})
	poll.Until(t, 10*time.Second, func() error {
		_, err := request(nc, "corrosion.local.host.cmd", `{"func":"ping"}`)
		return err
	})
	poll.Until(t, 10*time.Second, func() error { return wantLogs(nc, "ticker", "Welcome to the Corrosion", "tick 1") })
	if st := status(t, nc, "ticker"); st.State != wire.StateRunning {
		t.Errorf("ticker is %s, want running", st.State)
	}
	if _, err := request(nc, "corrosion.local.echo.cmd", `{"func":"start","wait":true}`); err != nil {
		t.Fatal(err)
	}
	if _, err := request(nc, "corrosion.local.echo.cmd", `{"func":"send","command":"hello"}`); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, func() error { return wantLogs(nc, "echo", "Echo ready", "you said: hello") })
	if _, err := request(nc, "corrosion.local.echo.cmd", `{"func":"stop","wait":true}`); err != nil {
		t.Fatal(err)
	}
	if st := status(t, nc, "echo"); st.State != wire.StateStopped || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Errorf("echo after stop: %+v, want stopped with exit code 0 (its stop command)", st)
	}
}

// request sends a request and returns the reply, or its error.
func request(nc *nats.Conn, subject, body string) ([]byte, error) {
	m, err := nc.Request(subject, []byte(body), 15*time.Second)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", subject, body, err)
	}
	var head wire.Status
	if err := json.Unmarshal(m.Data, &head); err != nil {
		return nil, fmt.Errorf("%s: reply %q: %w", subject, m.Data, err)
	}
	if err := head.Err(); err != nil {
		return nil, fmt.Errorf("%s %s: %w", subject, body, err)
	}
	return m.Data, nil
}

func status(t *testing.T, nc *nats.Conn, id string) wire.InstanceStatus {
	t.Helper()
	data, err := request(nc, "corrosion.local."+id+".cmd", `{"func":"status"}`)
	if err != nil {
		t.Fatal(err)
	}
	var st wire.InstanceStatus
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// wantLogs checks the instance's console backlog holds every one of texts.
func wantLogs(nc *nats.Conn, id string, texts ...string) error {
	data, err := request(nc, "corrosion.local."+id+".cmd", `{"func":"logs","lines":50}`)
	if err != nil {
		return err
	}
	var rep wire.LogsReply
	if err := json.Unmarshal(data, &rep); err != nil {
		return err
	}
	var all strings.Builder
	for _, l := range rep.Lines {
		all.WriteString(l.Text + "\n")
	}
	for _, s := range texts {
		if !strings.Contains(all.String(), s) {
			return errors.New(id + " console lacks " + s + ":\n" + all.String())
		}
	}
	return nil
}

func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// tWriter sends the agent's log to t.Log.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
