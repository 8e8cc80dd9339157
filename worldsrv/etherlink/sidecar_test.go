package etherlink_test

import (
	"encoding/json"
	"fmt"
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
)

// etherWait is the deadline for a real sidecar to start or notice a world.
const etherWait = 45 * time.Second

// sidecar is the real ether binary (node 10) on its own NATS and a fresh,
// migrated database, on free ports: the link and /health.
type sidecar struct {
	t      *testing.T
	bin    string
	env    []string
	port   int // the world link, 127.0.0.1
	health int // --metrics-listen, 127.0.0.1
	cmd    *exec.Cmd
	out    *testbin.Output // the current process's stdout and stderr
	exited chan struct{}   // closed when the current process has exited
}

// startSidecar builds ether, migrates a new database and runs it; extra is
// added to its environment (RS_LINK_TOKEN).
func startSidecar(t *testing.T, extra ...string) *sidecar {
	t.Helper()
	ns := natstest.Start(t)
	s := &sidecar{t: t, bin: testbin.Build(t, "./ether/cmd/ether"),
		port: natstest.FreePort(t), health: natstest.FreePort(t)}
	s.env = append(dbEnv(t, pgtest.NewDatabase(t)), "RS_NODE_ID=10", "RS_CLUSTER_HOSTS="+ns.URL(),
		"RS_CLUSTER_NAME=etherlink"+strconv.Itoa(os.Getpid()))
	s.env = append(s.env, extra...)
	migrate := exec.Command(s.bin, "migrate")
	migrate.Env = append(testbin.Env(), s.env...)
	if b, err := migrate.CombinedOutput(); err != nil {
		t.Fatalf("ether migrate: %v\n%s", err, b)
	}
	s.start()
	return s
}

// dbEnv turns a database URL into the RS_DB_* variables.
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

// start runs the sidecar (again, on the same ports) and waits for /health.
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
	poll.Until(s.t, etherWait, func() error { _, err := s.worldLink(); return err })
}

// kill ends the sidecar with SIGKILL, as a crash would.
func (s *sidecar) kill() {
	s.t.Helper()
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// worldLink is world_link from the sidecar's /health: "up" or "down".
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

// waitWorldLink polls /health until world_link is want.
func (s *sidecar) waitWorldLink(want string) {
	s.t.Helper()
	poll.Until(s.t, etherWait, func() error {
		got, err := s.worldLink()
		if err == nil && got != want {
			err = fmt.Errorf("world_link %q, want %q", got, want)
		}
		return err
	})
}

func (s *sidecar) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }
