package cluster

import (
	"bytes"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/corrosion/corrosion/internal/natstest"
)

// TestMember_ConnectedLogHidesToken: a cluster host given as
// nats://TOKEN@host is logged with the token hidden (url.Redacted, which
// nats.go uses, hides only a password).
func TestMember_ConnectedLogHidesToken(t *testing.T) {
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
	nc, err := nats.Connect("nats://s3cret-token@127.0.0.1:" + strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	var buf bytes.Buffer
	m := &Member{log: slog.New(slog.NewTextHandler(&buf, nil))}
	m.onReconnect(nc)
	if out := buf.String(); strings.Contains(out, "s3cret-token") || !strings.Contains(out, "xxxxx@127.0.0.1") {
		t.Errorf("log line shows the token or not the server: %s", out)
	}
}
