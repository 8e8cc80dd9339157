package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
	"github.com/corrosion/corrosion/worldsrv/httpapi"
	"github.com/corrosion/corrosion/worldsrv/proto"
)

// A world spawning its sidecar on a port another process's ether already
// holds (another world's, with its own link token, or one run by hand
// without a token) links only to its own sidecar: it refuses the foreign
// listener and names it, with its PID, once; /ready stays 503; a login is
// answered 8 (login server offline) at once, not 13 after 5 ticks.
func TestEtherSpawn_PortHeldByAnotherEther_RefusedAndNamed(t *testing.T) {
	tests := []struct {
		name  string
		token string // the foreign ether's RS_LINK_TOKEN
		leave bool   // the foreign ether stops at the end: the world's own sidecar takes the port and links
	}{
		{"foreign ether without a token", "", false},
		{"another world's ether with its own token", "0123456789abcdef0123456789abcdef", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := natstest.Start(t)
			dsn := pgtest.NewDatabase(t)
			port := natstest.FreePort(t)
			foreign, foreignExited := runEther(t, dsn, ns.URL(), port, "RS_LINK_TOKEN="+tt.token)
			poll.Until(t, wait, func() error {
				nc, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
				if err == nil {
					nc.Close()
				}
				return err
			})
			p := launch(t, append([]string{"--node-id", "10", "--ether", "spawn", "--ether-port", strconv.Itoa(port),
				"--ether-bin", testbin.Build(t, "./ether/cmd/ether"), "--cluster", ns.URL()}, dbFlags(t, dsn)...)...)

			// Named once, with what holds the port; by then the world serves.
			pidField := "holder_pid=" + strconv.Itoa(foreign.Process.Pid)
			poll.Until(t, wait, func() error {
				if !strings.Contains(p.out.String(), pidField) {
					return fmt.Errorf("no log line names the foreign listener (%s)", pidField)
				}
				return nil
			})
			// Our own sidecar keeps failing to bind; the report is not repeated.
			poll.Until(t, wait, func() error {
				if n := strings.Count(p.out.String(), "address already in use"); n < 2 {
					return fmt.Errorf("our sidecar failed to bind %d times, want 2", n)
				}
				return nil
			})
			if n := strings.Count(p.out.String(), pidField); n != 1 {
				t.Fatalf("the foreign listener is named %d times, want once:\n%s", n, p.out.String())
			}

			resp, err := http.Get(p.http + "/ready")
			if err != nil {
				t.Fatal(err)
			}
			var r httpapi.Readiness
			err = json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusServiceUnavailable || r.Reason != httpapi.ReasonEtherDown {
				t.Fatalf("/ready %d %+v (%v), want 503 %q", resp.StatusCode, r, err, httpapi.ReasonEtherDown)
			}

			b := dial(t, p.game)
			asked := time.Now()
			b.send(proto.Login{Username: "stranger", Password: "secret"})
			r2, ok := b.next().(*proto.LoginResponse)
			took := time.Since(asked)
			if !ok || r2.Code != proto.LoginServerOffline {
				t.Fatalf("login answered %#v, want LoginResponse %d (login server offline)", r2, proto.LoginServerOffline)
			}
			// At once: within the tick that reads it (600 ms), with room for a
			// loaded machine; a 13 would come 5 ticks after the account check.
			if took > 1500*time.Millisecond {
				t.Fatalf("login answered after %v, want at once", took)
			}
			t.Logf("login answered %d after %v", r2.Code, took.Round(time.Millisecond))
			if !tt.leave {
				return
			}
			// The other ether goes: the world's own sidecar binds the port at
			// its next restart and proves itself, and the world is ready.
			_ = foreign.Process.Signal(syscall.SIGTERM)
			<-foreignExited
			left := time.Now()
			p.waitReady()
			t.Logf("linked to its own sidecar %v after the other ether left", time.Since(left).Round(time.Millisecond))
			dial(t, p.game).login("stranger")
		})
	}
}

// runEther migrates and runs the real ether on port with env added to its
// environment; it is stopped when the test ends. The channel closes when
// it exits.
func runEther(t *testing.T, dsn, nats string, port int, env ...string) (*exec.Cmd, <-chan struct{}) {
	t.Helper()
	bin := testbin.Build(t, "./ether/cmd/ether")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	env = append(append(testbin.Env(), "RS_DB_HOST="+u.Hostname(), "RS_DB_PORT="+u.Port(), "RS_DB_NAME="+u.Path[1:],
		"RS_DB_USER="+u.User.Username(), "RS_DB_PASS="+pass, "RS_NODE_ID=10", "RS_CLUSTER_HOSTS="+nats), env...)
	migrate := exec.Command(bin, "migrate")
	migrate.Env = env
	if out, err := migrate.CombinedOutput(); err != nil {
		t.Fatalf("ether migrate: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "run", "--ether-port", strconv.Itoa(port))
	cmd.Env = env
	out := &testbin.Output{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-exited
		if t.Failed() {
			t.Logf("ether output:\n%s", out.String())
		}
	})
	return cmd, exited
}
