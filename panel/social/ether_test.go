package social_test

import (
	"net"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// etherNode is one real ether process publishing health on a test NATS.
type etherNode struct {
	t      *testing.T
	node   int
	port   int // world link, 127.0.0.1
	cmd    *exec.Cmd
	out    *testbin.Output
	exited chan struct{}
}

// etherCluster migrates a database for a cluster's nodes and returns a
// function that starts node n of it on natsURL, publishing health every
// 500 ms, with env added to its environment (an agent's
// CORROSION_LICENSE_ID and CORROSION_INSTANCE_ID: see runAs).
func etherCluster(t *testing.T, natsURL, cluster string) func(node int, env ...string) *etherNode {
	t.Helper()
	bin := testbin.Build(t, "./ether/cmd/ether")
	dsn := pgtest.NewDatabase(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	env := append(testbin.Env(), "RS_DB_HOST="+u.Hostname(), "RS_DB_PORT="+u.Port(), "RS_DB_NAME="+u.Path[1:],
		"RS_DB_USER="+u.User.Username(), "RS_DB_PASS="+pass, "RS_CLUSTER_HOSTS="+natsURL, "RS_CLUSTER_NAME="+cluster,
		"RS_HEALTH_INTERVAL=500ms", "RS_HEARTBEAT=200ms", "RS_NODE_TIMEOUT=1s")
	migrate := exec.Command(bin, "migrate")
	migrate.Env = env
	if b, err := migrate.CombinedOutput(); err != nil {
		t.Fatalf("ether migrate: %v\n%s", err, b)
	}
	return func(node int, extra ...string) *etherNode {
		t.Helper()
		e := &etherNode{t: t, node: node, port: natstest.FreePort(t), out: &testbin.Output{}, exited: make(chan struct{})}
		e.cmd = exec.Command(bin, "run", "--ether-port", strconv.Itoa(e.port))
		e.cmd.Env = append(append(slices.Clip(env), "RS_NODE_ID="+strconv.Itoa(node)), extra...)
		e.cmd.Stdout, e.cmd.Stderr = e.out, e.out
		if err := e.cmd.Start(); err != nil {
			t.Fatalf("start ether %d: %v", node, err)
		}
		go func() { _ = e.cmd.Wait(); close(e.exited) }()
		t.Cleanup(func() {
			e.Kill()
			if t.Failed() {
				t.Logf("ether %d output:\n%s", node, e.out)
			}
		})
		return e
	}
}

// runAs is the environment an agent of license gives its instance id (agent/supervise).
func runAs(license, instance string) []string {
	return []string{"CORROSION_LICENSE_ID=" + license, "CORROSION_INSTANCE_ID=" + instance}
}

// ConnectWorld opens a TCP connection to the node's world link (a world
// connected is all ether needs to report its link up) and closes it at
// cleanup.
func (e *etherNode) ConnectWorld() net.Conn {
	e.t.Helper()
	var c net.Conn
	poll.Until(e.t, 30*time.Second, func() (err error) {
		c, err = net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(e.port))
		return err
	})
	e.t.Cleanup(func() { c.Close() })
	return c
}

// Kill ends the node with SIGKILL: no clean-stop beacon.
func (e *etherNode) Kill() {
	_ = e.cmd.Process.Kill()
	<-e.exited
}

// Stop ends the node with SIGTERM: it publishes its clean-stop beacon.
func (e *etherNode) Stop() {
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.exited:
	case <-time.After(15 * time.Second):
		e.t.Errorf("ether %d did not stop on SIGTERM", e.node)
		e.Kill()
	}
}
