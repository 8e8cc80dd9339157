package engine

import (
	"bufio"
	"context"
	"io"
	"net"
	"testing"
	"time"

	etherproto "github.com/corrosion/corrosion/ether/proto"
	"github.com/corrosion/corrosion/worldsrv/etherlink"
)

// startLink runs an etherlink client to addr until the test ends.
func startLink(t *testing.T, addr string) *etherlink.Client {
	t.Helper()
	return runLink(t, etherlink.Config{Addr: addr})
}

// startQueryingLink is startLink asking the sidecar for its Features on
// every connection, as worldsrv/world's link does.
func startQueryingLink(t *testing.T, addr string) *etherlink.Client {
	t.Helper()
	return runLink(t, etherlink.Config{Addr: addr, QueryFeatures: true})
}

// runLink runs an etherlink client with cfg (node 10, a quick backoff)
// until the test ends.
func runLink(t *testing.T, cfg etherlink.Config) *etherlink.Client {
	t.Helper()
	cfg.NodeID, cfg.Logger = 10, testLogger(t)
	cfg.Backoff = etherlink.Backoff{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond, Stable: time.Minute}
	c := etherlink.New(cfg)
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

// scriptedPeer is a sidecar the test speaks for: it accepts one link,
// passes every frame the world sends to got (decoded, by opcode) and
// writes what the test sends with answer.
type scriptedPeer struct {
	t    *testing.T
	addr string
	ln   net.Listener
	got  chan etherproto.Message // world → peer, in order
	conn chan net.Conn           // the accepted link, once
}

func newScriptedPeer(t *testing.T) *scriptedPeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &scriptedPeer{t: t, addr: ln.Addr().String(), ln: ln, got: make(chan etherproto.Message, 1024), conn: make(chan net.Conn, 1)}
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		t.Cleanup(func() { nc.Close() })
		p.conn <- nc
		r := bufio.NewReader(nc)
		for {
			payload, err := etherproto.ReadFrame(r, nil)
			if err != nil {
				return
			}
			if m, err := etherproto.DecodeInbound(payload); err == nil {
				p.got <- m
			}
		}
	}()
	return p
}

// await returns the next frame the world sent with opcode op, skipping
// others, within wait.
func (p *scriptedPeer) await(op etherproto.Op) etherproto.Message {
	p.t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case m := <-p.got:
			if m.Op() == op {
				return m
			}
		case <-timeout:
			p.t.Fatalf("the world sent no %v within %v", op, wait)
			return nil
		}
	}
}

// opsUntil returns the opcodes of the frames the world sends next, up to
// and including the first with opcode op, within wait.
func (p *scriptedPeer) opsUntil(op etherproto.Op) []etherproto.Op {
	p.t.Helper()
	var ops []etherproto.Op
	timeout := time.After(wait)
	for {
		select {
		case m := <-p.got:
			if ops = append(ops, m.Op()); m.Op() == op {
				return ops
			}
		case <-timeout:
			p.t.Fatalf("the world sent no %v within %v (sent %v)", op, wait, ops)
			return nil
		}
	}
}

// answer writes ms to the world.
func (p *scriptedPeer) answer(ms ...etherproto.Message) {
	p.t.Helper()
	nc := <-p.conn
	p.conn <- nc
	var b []byte
	for _, m := range ms {
		var err error
		if b, err = etherproto.AppendFrame(b, m); err != nil {
			p.t.Fatal(err)
		}
	}
	if _, err := nc.Write(b); err != nil {
		p.t.Fatal(err)
	}
}

// stop closes the link and stops listening: the sidecar is gone.
func (p *scriptedPeer) stop() {
	p.ln.Close()
	nc := <-p.conn
	p.conn <- nc
	nc.Close()
}
