package ether_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether"
	"github.com/corrosion/corrosion/ether/proto"
)

const linkToken = "tok-3f9a61c2"

// connectWorldWithToken dials node's link, presents token, and registers.
func connectWorldWithToken(t testing.TB, tn *testNode, token string) *world {
	t.Helper()
	conn, err := net.Dial("tcp", tn.node.WorldAddr().String())
	if err != nil {
		t.Fatalf("dial node %d: %v", tn.cfg.NodeID, err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := proto.WriteLinkAuth(conn, token); err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, node: tn.cfg.NodeID, conn: conn, frames: make(chan proto.Message, 1<<16), closed: make(chan struct{})}
	go w.read()
	w.send(proto.WorldRegister{NodeID: tn.cfg.NodeID})
	return w
}

// intrude connects to node's link, writes first, and expects the node to
// close the connection without a word.
func intrude(t *testing.T, tn *testNode, first ...proto.Message) {
	t.Helper()
	conn, err := net.Dial("tcp", tn.node.WorldAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, m := range first {
		if err := proto.WriteFrame(conn, m); err != nil {
			t.Fatal(err)
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	if n, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("intruder read %d bytes, %v; want EOF (closed)", n, err)
	}
}

// With RS_LINK_TOKEN, a node serves the world that presents the token and
// closes connections that do not, which never displace that world.
func TestNode_LinkToken(t *testing.T) {
	c := newTestCluster(t, "")
	tn := c.start(10, func(cfg *ether.Config) { cfg.LinkToken = linkToken })

	intrude(t, tn, proto.WorldRegister{NodeID: 10}, proto.LoginCheck{User37: 1}) // a seed world without the token
	w := connectWorldWithToken(t, tn, linkToken)
	w.send(proto.LoginCheck{User37: 2})
	w.expect(allowed(2))

	intrude(t, tn, proto.LinkAuth{Token: []byte("guess")}, proto.LoginCheck{User37: 3})
	intrude(t, tn, proto.LoginCheck{User37: 3})
	w.send(proto.LoginCheck{User37: 4})
	w.expect(allowed(4))
	w.send(proto.LoginCheck{User37: 3}) // the intruders' checks never took the lock
	w.expect(allowed(3))
}

// Without RS_LINK_TOKEN, a world that sends LinkAuth anyway is served.
func TestNode_NoLinkToken_LinkAuthIgnored(t *testing.T) {
	c := newTestCluster(t, "")
	tn := c.start(10)
	w := connectWorldWithToken(t, tn, "a token this ether does not want")
	w.send(proto.LoginCheck{User37: 5})
	w.expect(allowed(5))
}

func TestLoadConfig_LinkToken(t *testing.T) {
	for name, src := range map[string]struct {
		args []string
		env  []string
	}{
		"environment":                    {env: []string{"RS_LINK_TOKEN=" + linkToken}},
		"flag":                           {args: []string{"--link-token", linkToken}},
		"flag wins over the environment": {args: []string{"--link-token=" + linkToken}, env: []string{"RS_LINK_TOKEN=other"}},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := ether.LoadConfig(src.args, envOf(src.env...))
			if err != nil || c.LinkToken != linkToken {
				t.Fatalf("LinkToken %q, err %v", c.LinkToken, err)
			}
			var usage bytes.Buffer
			ether.NewFlagSet(&c, &usage).PrintDefaults()
			if out := usage.String(); strings.Contains(out, linkToken) || !strings.Contains(out, "RS_LINK_TOKEN] (default ***)") {
				t.Fatalf("usage shows the token, or does not say one is set:\n%s", out)
			}
		})
	}
	if c, err := ether.LoadConfig(nil, envOf()); err != nil || c.LinkToken != "" {
		t.Fatalf("default: LinkToken %q, err %v", c.LinkToken, err)
	}
	long := strings.Repeat("k", proto.MaxPayload)
	_, err := ether.LoadConfig(nil, envOf("RS_LINK_TOKEN="+long))
	if !errors.Is(err, ether.ErrConfig) || !strings.Contains(err.Error(), "link token") || strings.Contains(err.Error(), "kkkk") {
		t.Fatalf("a token too long for a frame: %v", err)
	}
}
