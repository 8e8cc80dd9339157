package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
	"github.com/corrosion/corrosion/worldsrv/etherlink"
)

// sidecar is the real ether binary (node 10) on its own NATS and a fresh,
// migrated database, on free ports (as worldsrv/etherlink's tests run it).
type sidecar struct {
	t      *testing.T
	bin    string
	env    []string
	port   int
	health int
	cmd    *exec.Cmd
	out    *testbin.Output
	exited chan struct{}
}

func startSidecar(t *testing.T) *sidecar {
	t.Helper()
	ns := natstest.Start(t)
	s := &sidecar{t: t, bin: testbin.Build(t, "./ether/cmd/ether"),
		port: natstest.FreePort(t), health: natstest.FreePort(t)}
	s.env = append(dbEnv(t, pgtest.NewDatabase(t)), "RS_NODE_ID=10", "RS_CLUSTER_HOSTS="+ns.URL(),
		"RS_CLUSTER_NAME=engine"+strconv.Itoa(os.Getpid()))
	migrate := exec.Command(s.bin, "migrate")
	migrate.Env = append(testbin.Env(), s.env...)
	if b, err := migrate.CombinedOutput(); err != nil {
		t.Fatalf("ether migrate: %v\n%s", err, b)
	}
	s.start()
	return s
}

func dbEnv(t *testing.T, dsn string) []string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	return []string{"RS_DB_HOST=" + u.Hostname(), "RS_DB_PORT=" + u.Port(), "RS_DB_NAME=" + u.Path[1:],
		"RS_DB_USER=" + u.User.Username(), "RS_DB_PASS=" + pass}
}

func (s *sidecar) start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, "run", "--ether-port", strconv.Itoa(s.port),
		"--metrics-listen", "127.0.0.1:"+strconv.Itoa(s.health))
	s.cmd.Env = append(testbin.Env(), s.env...)
	s.out = &testbin.Output{}
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start ether: %v", err)
	}
	cmd, exited, out := s.cmd, make(chan struct{}), s.out
	s.exited = exited
	go func() { _ = cmd.Wait(); close(exited) }()
	s.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if s.t.Failed() {
			s.t.Logf("ether output:\n%s", out)
		}
	})
	poll.Until(s.t, wait, func() error { _, err := s.worldLink(); return err })
}

func (s *sidecar) kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

func (s *sidecar) worldLink() (string, error) {
	client := http.Client{Timeout: 2 * time.Second}
	resp, err := client.Get("http://127.0.0.1:" + strconv.Itoa(s.health) + "/health")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var h struct {
		WorldLink string `json:"world_link"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return "", fmt.Errorf("decode /health: %w", err)
	}
	return h.WorldLink, nil
}

func (s *sidecar) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// startLink runs an etherlink client to addr until the test ends.
func startLink(t *testing.T, addr string) *etherlink.Client {
	t.Helper()
	c := etherlink.New(etherlink.Config{Addr: addr, NodeID: 10, Logger: testLogger(t),
		Backoff: etherlink.Backoff{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond, Stable: time.Minute}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("etherlink Run: %v", err)
		}
	})
	return c
}

// silentPeer accepts connections and reads everything, never answering:
// a sidecar that is linked but never answers a LoginCheck.
func silentPeer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { nc.Close() })
			go func() { _, _ = io.Copy(io.Discard, nc) }()
		}
	}()
	return ln.Addr().String()
}
