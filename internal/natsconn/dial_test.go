package natsconn

import (
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/internal/testbin"
)

// TestDial_ConnectedLogHidesToken: a server given as nats://TOKEN@host is
// logged with the token hidden (url.Redacted, which nats.go uses, hides
// only a password), and OnConnect runs once, as a first connect. (Moved
// from ether's cluster, which dials through here.)
func TestDial_ConnectedLogHidesToken(t *testing.T) {
	port := natstest.FreePort(t)
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, NoLog: true, NoSigs: true,
		Authorization: "s3cret-token"})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	t.Cleanup(srv.Shutdown)
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	logs := &testbin.Output{}
	connects := make(chan bool, 4)
	nc, err := Dial(t.Context(), Options{URL: "nats://s3cret-token@127.0.0.1:" + strconv.Itoa(port), Name: "test",
		Log: slog.New(slog.NewTextHandler(logs, nil)), Program: "the test",
		OnConnect: func(_ *nats.Conn, reconnect bool) { connects <- reconnect }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if reconnect := <-connects; reconnect {
		t.Error("the first connect was reported as a reconnect")
	}
	poll.True(t, 10*time.Second, "nats connected logged", func() bool { return strings.Contains(logs.String(), "nats connected") })
	if out := logs.String(); strings.Contains(out, "s3cret-token") || !strings.Contains(out, "xxxxx@127.0.0.1") {
		t.Errorf("log line shows the token or not the server: %s", out)
	}
}
