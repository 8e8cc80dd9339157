package rcon_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/rcon"
	"github.com/corrosion/corrosion/agent/rcon/rcontest"
)

func TestNew_RejectsBadConfig(t *testing.T) {
	cases := []struct {
		name string
		cfg  rcon.Config
		want string
	}{
		{"port zero", rcon.Config{Kind: rcon.KindSource}, "port"},
		{"port too big", rcon.Config{Kind: rcon.KindSource, Port: 70000}, "port"},
		{"unknown kind", rcon.Config{Kind: "telnet", Port: 1}, "kind"},
		{"empty kind", rcon.Config{Port: 1}, "kind"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rcon.New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New(%+v) = %v, want an error naming %s", tc.cfg, err, tc.want)
			}
		})
	}
}

func TestCode(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{rcon.ErrRefused, "rcon_refused"},
		{fmt.Errorf("x: %w", rcon.ErrAuth), "rcon_auth"},
		{fmt.Errorf("x: %w", rcon.ErrTimeout), "rcon_timeout"},
		{context.DeadlineExceeded, "rcon_timeout"},
		{fmt.Errorf("x: %w", rcon.ErrTooLarge), "rcon_too_large"},
		{fmt.Errorf("x: %w", rcon.ErrProtocol), "rcon_protocol"},
		{rcon.ErrDisconnected, "rcon_disconnected"},
		{rcon.ErrClosed, "rcon_closed"},
		{context.Canceled, "rcon_canceled"},
		{rcon.ErrBadCommand, "rcon_bad_command"},
		{errors.New("other"), "rcon_failed"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.err), func(t *testing.T) {
			if got := rcon.Code(tc.err); got != tc.want {
				t.Fatalf("Code(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

// stalledClient returns a client of the given kind whose server never
// answers.
func stalledClient(t *testing.T, kind rcon.Kind, timeout time.Duration) *rcon.Client {
	port := 0
	switch kind {
	case rcon.KindSource:
		s := rcontest.NewSource(t, rcontest.SourceOptions{Password: "pw"})
		s.SetStall(true)
		port = s.Port()
	case rcon.KindWebRCON:
		s := rcontest.NewWeb(t, rcontest.WebOptions{Password: "pw"})
		s.SetStall(true)
		port = s.Port()
	}
	return newClient(t, rcon.Config{Kind: kind, Port: port, Password: "pw", Timeout: timeout})
}

func TestClient_CancelCloseAndBadCommand(t *testing.T) {
	for _, kind := range []rcon.Kind{rcon.KindSource, rcon.KindWebRCON} {
		t.Run(string(kind)+"/cancel", func(t *testing.T) {
			c := stalledClient(t, kind, time.Minute)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { _, err := c.Exec(ctx, "status"); done <- err }()
			cancel()
			if err := waitErr(t, done); rcon.Code(err) != rcon.CodeCanceled {
				t.Fatalf("cancelled Exec: %v (code %q), want %q", err, rcon.Code(err), rcon.CodeCanceled)
			}
		})
		t.Run(string(kind)+"/caller deadline", func(t *testing.T) {
			c := stalledClient(t, kind, time.Minute)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			if _, err := c.Exec(ctx, "status"); !errors.Is(err, rcon.ErrTimeout) {
				t.Fatalf("Exec past the caller's deadline: %v, want ErrTimeout", err)
			}
		})
		t.Run(string(kind)+"/close", func(t *testing.T) {
			c := stalledClient(t, kind, time.Minute)
			done := make(chan error, 1)
			go func() { _, err := c.Exec(context.Background(), "status"); done <- err }()
			// Close may land before or after Exec connects; either way
			// Exec must end with ErrClosed.
			if err := c.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := waitErr(t, done); !errors.Is(err, rcon.ErrClosed) {
				t.Fatalf("Exec across Close: %v, want ErrClosed", err)
			}
			if _, err := c.Exec(context.Background(), "status"); !errors.Is(err, rcon.ErrClosed) {
				t.Fatalf("Exec after Close: %v, want ErrClosed", err)
			}
		})
		t.Run(string(kind)+"/bad command", func(t *testing.T) {
			c := stalledClient(t, kind, time.Minute)
			for _, cmd := range []string{"", "   ", strings.Repeat("x", rcon.MaxCommandBytes+1), "a\x00b"} {
				if _, err := c.Exec(context.Background(), cmd); rcon.Code(err) != rcon.CodeBadCommand {
					t.Fatalf("Exec(%.10q…) = %v, want ErrBadCommand", cmd, err)
				}
			}
		})
	}
}

// TestClient_CloseDuringDial: Close cuts short an Exec still waiting for
// the server to answer the handshake.
func TestClient_CloseDuringDial(t *testing.T) {
	for _, kind := range []rcon.Kind{rcon.KindSource, rcon.KindWebRCON} {
		t.Run(string(kind), func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ln.Close() })
			accepted := make(chan net.Conn, 1)
			go func() { // accept, then never say a word
				if c, err := ln.Accept(); err == nil {
					accepted <- c
				}
			}()
			c := newClient(t, rcon.Config{Kind: kind, Port: ln.Addr().(*net.TCPAddr).Port, Password: "pw", Timeout: time.Minute})
			done := make(chan error, 1)
			go func() { _, err := c.Exec(context.Background(), "status"); done <- err }()
			conn := <-accepted
			t.Cleanup(func() { _ = conn.Close() })
			_ = c.Close()
			if err := waitErr(t, done); !errors.Is(err, rcon.ErrClosed) {
				t.Fatalf("Exec across Close during the handshake: %v, want ErrClosed", err)
			}
		})
	}
}

func waitErr(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("Exec did not return within 5s")
		return nil
	}
}
