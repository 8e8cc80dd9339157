package main

import (
	"bufio"
	"bytes"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/buildinfo"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// dbEnv turns a database URL into the seed's RS_DB_* variables, naming
// database name instead of the URL's.
func dbEnv(t *testing.T, dsn, name string) []string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	return []string{"RS_DB_HOST=" + u.Hostname(), "RS_DB_PORT=" + u.Port(), "RS_DB_NAME=" + name,
		"RS_DB_USER=" + u.User.Username(), "RS_DB_PASS=" + pass}
}

func command(bin string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

func TestBinary_VersionAndBadUsage(t *testing.T) {
	bin := testbin.Build(t, "./ether/cmd/ether")
	tests := []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"--version"}, 0, buildinfo.DevVersion},
		{[]string{"version"}, 0, "commit"},
		{[]string{"help"}, 0, "RS_CLUSTER_HOSTS"},
		{[]string{"help"}, 0, "-link-token value"},
		{nil, 2, "usage"},
		{[]string{"dance"}, 2, "unknown command"},
		{[]string{"run", "--node-id", "0"}, 2, "node-id"},
		{[]string{"run", "--cluster-name", "a.b"}, 2, "cluster name"},
		{[]string{"run", "--no-such-flag"}, 2, "no-such-flag"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cmd, stdout, stderr := command(bin, nil, tt.args...)
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			out := stdout.String() + stderr.String()
			if code != tt.code || !strings.Contains(out, tt.contains) {
				t.Fatalf("exit %d, output %q; want exit %d containing %q", code, out, tt.code, tt.contains)
			}
		})
	}
}

func TestBinary_MigrateRunLoginCheckAndSIGTERM(t *testing.T) {
	bin := testbin.Build(t, "./ether/cmd/ether")
	ns := natstest.Start(t)
	// A database name of its own, which `ether migrate` must create.
	env := dbEnv(t, pgtest.NewDatabase(t), "ether_e2e_"+strconv.Itoa(os.Getpid())+"_"+strconv.FormatInt(time.Now().UnixNano(), 36))
	port := natstest.FreePort(t)
	env = append(env, "RS_NODE_ID=10", "RS_CLUSTER_HOSTS="+ns.URL())
	runArgs := []string{"run", "--ether-port", strconv.Itoa(port), "--cluster-name", "e2e"}

	// run refuses a database that was never migrated (here: not even created).
	cmd, _, stderr := command(bin, env, runArgs...)
	if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "ether migrate") {
		t.Fatalf("run on an unmigrated database: %v, stderr %q", err, stderr.String())
	}
	cmd, _, stderr = command(bin, env, "migrate")
	if err := cmd.Run(); err != nil {
		t.Fatalf("migrate: %v\n%s", err, stderr)
	}

	cmd, _, stderr = command(bin, env, runArgs...)
	var stdout testbin.Output // read while ether runs: the console's answers
	cmd.Stdout = &stdout
	stdin, err := cmd.StdinPipe() // left open: it must not hold up SIGTERM
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	var conn net.Conn
	poll.Until(t, 30*time.Second, func() error {
		var err error
		conn, err = net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		return err
	})
	defer conn.Close()
	if err := proto.WriteFrame(conn, proto.WorldRegister{NodeID: 10}); err != nil {
		t.Fatal(err)
	}
	if err := proto.WriteFrame(conn, proto.LoginCheck{User37: 424242}); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	p, err := proto.ReadFrame(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to LoginCheck: %v\n%s", err, stderr)
	}
	if m, err := proto.DecodeOutbound(p); err != nil || *m.(*proto.LoginCheckResponse) != (proto.LoginCheckResponse{User37: 424242, Allowed: true}) {
		t.Fatalf("LoginCheck answer %#v, %v", m, err)
	}

	// The console input: a few admin words, answered on stdout.
	testbin.Converse(t, stdin, &stdout, 10*time.Second,
		testbin.Exchange{Line: "status", Want: "node 10  cluster e2e  world link up"},
		testbin.Exchange{Line: "health", Want: `"login_checks_allowed":1`},
		testbin.Exchange{Line: "frobnicate", Want: `unknown command "frobnicate"; commands: status, health, help`})

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no exit within 20s of SIGTERM\n%s", stderr)
	}
	if !strings.Contains(stderr.String(), "ether stopped") {
		t.Fatalf("no clean stop in the log:\n%s", stderr)
	}
}
