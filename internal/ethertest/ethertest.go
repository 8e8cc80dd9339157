// Package ethertest runs the real ether binary for the tests of its peers
// (worldsrv's sidecar link and engine): node 10 on its own NATS server and
// a fresh, migrated database, on free loopback ports. Test code only: it
// must never reach a shipped binary (internal/deptest checks).
package ethertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// Wait is the deadline for a real sidecar to start or notice a world.
const Wait = 45 * time.Second

// Sidecar is one ether process, restartable on the same ports. Its
// methods are for the test goroutine.
type Sidecar struct {
	t      *testing.T
	bin    string
	env    []string
	dsn    string          // the database ether uses
	port   int             // the world link, 127.0.0.1
	health int             // --metrics-listen, 127.0.0.1
	cmd    *exec.Cmd       // the current process
	out    *testbin.Output // the current process's stdout and stderr
	exited <-chan struct{} // closed when the current process has exited
}

// Start builds ether, migrates a new database and runs it until the test
// ends; extraEnv is added to its environment (e.g. RS_LINK_TOKEN=…).
func Start(t *testing.T, extraEnv ...string) *Sidecar {
	t.Helper()
	ns := natstest.Start(t)
	s := &Sidecar{t: t, bin: testbin.Build(t, "./ether/cmd/ether"),
		port: natstest.FreePort(t), health: natstest.FreePort(t)}
	s.dsn = pgtest.NewDatabase(t)
	db, err := flagval.ParseDB(s.dsn)
	if err != nil {
		t.Fatal(err)
	}
	s.env = append(db.Env(), "RS_NODE_ID=10", "RS_CLUSTER_HOSTS="+ns.URL(), "RS_CLUSTER_NAME=ethertest")
	s.env = append(s.env, extraEnv...)
	migrate := exec.Command(s.bin, "migrate")
	migrate.Env = append(testbin.Env(), s.env...)
	if b, err := migrate.CombinedOutput(); err != nil {
		t.Fatalf("ether migrate: %v\n%s", err, b)
	}
	s.Run()
	return s
}

// Run starts the sidecar (again, on the same ports) and waits for /health.
func (s *Sidecar) Run() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, "run", "--ether-port", strconv.Itoa(s.port),
		"--metrics-listen", "127.0.0.1:"+strconv.Itoa(s.health))
	s.cmd.Env = append(testbin.Env(), s.env...)
	s.out, s.exited = testbin.Start(s.t, "ether", s.cmd)
	poll.Until(s.t, Wait, func() error { _, err := s.WorldLink(); return err })
}

// Kill ends the sidecar with SIGKILL, as a crash would.
func (s *Sidecar) Kill() {
	s.t.Helper()
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// Addr is the world link's address.
func (s *Sidecar) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// DSN is the URL of the database the sidecar uses.
func (s *Sidecar) DSN() string { return s.dsn }

// Output is what the current process has written so far.
func (s *Sidecar) Output() string { return s.out.String() }

// WorldLink is world_link from the sidecar's /health: "up" or "down".
func (s *Sidecar) WorldLink() (string, error) {
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

// WaitWorldLink polls /health until world_link is want.
func (s *Sidecar) WaitWorldLink(want string) {
	s.t.Helper()
	poll.Until(s.t, Wait, func() error {
		got, err := s.WorldLink()
		if err == nil && got != want {
			err = fmt.Errorf("world_link %q, want %q", got, want)
		}
		return err
	})
}
