package app_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/app"
)

// syncBuffer is a log destination safe for concurrent writes and reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServesWhileNATSIsDownThenCatchesUp starts the panel with NATS down:
// it serves at once, logs the failure once (not once per retry), and when
// NATS comes up it connects and ingests without anyone acting.
func TestServesWhileNATSIsDownThenCatchesUp(t *testing.T) {
	ns := natstest.Start(t)
	ns.Shutdown()
	dsn, pw := migrated(t)
	cfg := app.DefaultConfig()
	cfg.DatabaseURL, cfg.NATSURL = dsn, ns.URL()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, cfg, ln, slog.New(slog.NewTextHandler(&logs, nil))) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	r := &replica{url: "http://" + ln.Addr().String()}
	poll.Until(t, 10*time.Second, func() error {
		code, _ := get(t, http.DefaultClient, r.url+"/healthz")
		if code != http.StatusOK {
			return errors.New("no /healthz yet")
		}
		return nil
	})
	hc := login(t, r.url, "root", pw)
	poll.True(t, 10*time.Second, "the NATS failure logged", func() bool { return strings.Contains(logs.String(), "cannot connect") })
	time.Sleep(3 * time.Second) // several retries (1 s, 2 s …) pass
	if n := strings.Count(logs.String(), "cannot connect"); n != 1 {
		t.Errorf("the refused connection was logged %d times, want once per episode:\n%s", n, logs.String())
	}
	ns.Restart()
	nc := ns.Connect(t)
	poll.Until(t, 60*time.Second, func() error {
		hb := []byte(`{"schema":2,"timestamp":"` + time.Now().UTC().Format(time.RFC3339Nano) + `","agent":{"version":"t","os":"linux","arch":"amd64"},"host":{"hostname":"late-host"},"instances":[]}`)
		if err := nc.Publish(wire.HeartbeatSubject("demo"), hb); err != nil {
			return err
		}
		if code, body := get(t, hc, r.url+"/"); code != http.StatusOK || !strings.Contains(body, "late-host") {
			return errors.New("the host is not on the fleet page yet")
		}
		return nil
	})
	if !strings.Contains(logs.String(), "nats connected") {
		t.Errorf("no 'nats connected' line after NATS came up:\n%s", logs.String())
	}
}

// TestNATSUserPassword: --nats-user/--nats-password reach the server; a
// wrong password is logged once as an authorization failure while the
// panel keeps serving.
func TestNATSUserPassword(t *testing.T) {
	port := natstest.FreePort(t)
	srv, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: port, Username: "panel", Password: "right", NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats not ready")
	}
	defer srv.Shutdown()
	dsn, _ := migrated(t)
	for _, c := range []struct {
		password, want string
	}{{"right", "nats connected"}, {"wrong", "authorization violation"}} {
		cfg := app.DefaultConfig()
		cfg.DatabaseURL, cfg.NATSURL = dsn, fmt.Sprintf("nats://127.0.0.1:%d", port)
		cfg.NATSUser, cfg.NATSPassword = "panel", c.password
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var logs syncBuffer
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- app.Serve(ctx, cfg, ln, slog.New(slog.NewTextHandler(&logs, nil))) }()
		poll.True(t, 15*time.Second, c.want, func() bool { return strings.Contains(logs.String(), c.want) })
		if code, _ := get(t, http.DefaultClient, "http://"+ln.Addr().String()+"/healthz"); code != http.StatusOK {
			t.Errorf("password %s: /healthz %d", c.password, code)
		}
		if strings.Contains(logs.String(), c.password) && c.password == "wrong" {
			t.Errorf("the password is in the log:\n%s", logs.String())
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
}
