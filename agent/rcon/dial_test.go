package rcon

import (
	"context"
	"errors"
	"net"
	"testing"
)

// TestLoopbackOnly: the one dialer of both RCON kinds dials its configured
// 127.0.0.1 port and refuses every other address without dialling it.
func TestLoopbackOnly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	dial := loopbackOnly(ln.Addr().String())
	conn, err := dial(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("configured address: %v", err)
	}
	_ = conn.Close()
	for _, to := range []string{other.Addr().String(), "example.com:80", "[::1]:" + portOf(ln)} {
		if _, err := dial(context.Background(), "tcp", to); !errors.Is(err, ErrNotLocal) || !errors.Is(err, ErrProtocol) {
			t.Errorf("dial %s: %v, want ErrNotLocal", to, err)
		}
	}
	if _, err := dial(context.Background(), "udp", ln.Addr().String()); !errors.Is(err, ErrNotLocal) {
		t.Errorf("udp: %v, want ErrNotLocal", err)
	}
}

func portOf(ln net.Listener) string {
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	return p
}
