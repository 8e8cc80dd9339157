package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// The binary with RS_LINK_TOKEN in its environment closes a world link
// that does not present the token, serves one that does, and never prints
// the token.
func TestBinary_LinkToken(t *testing.T) {
	const token = "binary-token-5e1d"
	bin := testbin.Build(t, "./ether/cmd/ether")
	ns := natstest.Start(t)
	env := dbEnv(t, pgtest.NewDatabase(t), "ether_tok_"+strconv.Itoa(os.Getpid())+"_"+strconv.FormatInt(time.Now().UnixNano(), 36))
	port := natstest.FreePort(t)
	env = append(env, "RS_NODE_ID=10", "RS_CLUSTER_HOSTS="+ns.URL(), "RS_LINK_TOKEN="+token)
	if cmd, _, stderr := command(bin, env, "migrate"); cmd.Run() != nil {
		t.Fatalf("migrate: %s", stderr)
	}
	cmd, _, stderr := command(bin, env, "run", "--ether-port", strconv.Itoa(port), "--cluster-name", "tok", "--log-level", "debug")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	var intruder net.Conn
	poll.Until(t, 30*time.Second, func() error {
		var err error
		intruder, err = net.Dial("tcp", addr)
		return err
	})
	defer intruder.Close()
	if err := proto.WriteFrame(intruder, proto.LoginCheck{User37: 7}); err != nil {
		t.Fatal(err)
	}
	_ = intruder.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := intruder.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("a world without the token: read %v, want EOF", err)
	}

	world, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer world.Close()
	if err := proto.WriteLinkAuth(world, token); err != nil {
		t.Fatal(err)
	}
	if err := proto.WriteFrame(world, proto.LoginCheck{User37: 7}); err != nil {
		t.Fatal(err)
	}
	_ = world.SetReadDeadline(time.Now().Add(10 * time.Second))
	p, err := proto.ReadFrame(bufio.NewReader(world), nil)
	if err != nil {
		t.Fatalf("no answer with the token: %v", err)
	}
	if m, err := proto.DecodeOutbound(p); err != nil || *m.(*proto.LoginCheckResponse) != (proto.LoginCheckResponse{User37: 7, Allowed: true}) {
		t.Fatalf("LoginCheck answer %#v, %v", m, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit within 20s of SIGTERM")
	}
	log := stderr.String() // the process has exited: no more writes
	if strings.Contains(log, token) || !strings.Contains(log, "refusing a world connection") || !strings.Contains(log, "link_token=true") {
		t.Fatalf("want a refusal, link_token=true and no token in the log:\n%s", log)
	}
}
