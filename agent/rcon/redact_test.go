package rcon_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/rcon"
	"github.com/corrosion/corrosion/agent/rcon/rcontest"
	"github.com/corrosion/corrosion/internal/poll"
)

// secret is a password with characters that URL encoding changes.
const secret = "hunter2 S3cret/x?y#z%"

// secretForms are the ways secret can show up in text.
var secretForms = []string{secret, url.PathEscape(secret), url.QueryEscape(secret), "hunter2"}

// checkRedacted fails if any error in err's chain, or the log, shows the
// password.
func checkRedacted(t *testing.T, err error, logs string) {
	t.Helper()
	if err == nil {
		t.Fatal("expected an error")
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		for _, f := range secretForms {
			if strings.Contains(e.Error(), f) {
				t.Fatalf("error shows the password (%q): %q", f, e.Error())
			}
		}
	}
	for _, f := range secretForms {
		if strings.Contains(logs, f) {
			t.Fatalf("log shows the password (%q): %s", f, logs)
		}
	}
}

// httpServer serves h on 127.0.0.1:0 and returns its port.
func httpServer(t *testing.T, h http.HandlerFunc) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

func TestRedaction_NoErrorOrLogShowsPassword(t *testing.T) {
	huge := bigReply(3 << 20)
	tooBig := bigReply(rcon.MaxResponseBytes + 1)
	// Each case's setup returns the port to point the client at.
	cases := []struct {
		name  string
		kind  rcon.Kind
		setup func(t *testing.T) (port int)
	}{
		{"source/refused", rcon.KindSource, func(t *testing.T) int { return freePort(t) }},
		{"source/bad password", rcon.KindSource, func(t *testing.T) int {
			return rcontest.NewSource(t, rcontest.SourceOptions{Password: "other"}).Port()
		}},
		{"source/timeout", rcon.KindSource, func(t *testing.T) int {
			s := rcontest.NewSource(t, rcontest.SourceOptions{Password: secret})
			s.SetStall(true)
			return s.Port()
		}},
		{"source/too large", rcon.KindSource, func(t *testing.T) int {
			return rcontest.NewSource(t, rcontest.SourceOptions{Password: secret, Handler: func(string) string { return tooBig }}).Port()
		}},
		{"source/cut mid-response", rcon.KindSource, func(t *testing.T) int {
			s := rcontest.NewSource(t, rcontest.SourceOptions{Password: secret, Handler: func(string) string { return "x" }})
			s.SetCloseMidResponse(true)
			return s.Port()
		}},
		{"source/not an rcon server", rcon.KindSource, func(t *testing.T) int {
			return rcontest.NewWeb(t, rcontest.WebOptions{Password: secret}).Port()
		}},
		{"webrcon/refused", rcon.KindWebRCON, func(t *testing.T) int { return freePort(t) }},
		{"webrcon/HTTP 401", rcon.KindWebRCON, func(t *testing.T) int {
			return rcontest.NewWeb(t, rcontest.WebOptions{Password: "other"}).Port()
		}},
		{"webrcon/closed on bad password", rcon.KindWebRCON, func(t *testing.T) int {
			return rcontest.NewWeb(t, rcontest.WebOptions{Password: "other", RejectByClose: true}).Port()
		}},
		{"webrcon/timeout", rcon.KindWebRCON, func(t *testing.T) int {
			s := rcontest.NewWeb(t, rcontest.WebOptions{Password: secret})
			s.SetStall(true)
			return s.Port()
		}},
		{"webrcon/too large", rcon.KindWebRCON, func(t *testing.T) int {
			return rcontest.NewWeb(t, rcontest.WebOptions{Password: secret, Handler: func(string) string { return tooBig }}).Port()
		}},
		{"webrcon/frame too large", rcon.KindWebRCON, func(t *testing.T) int {
			return rcontest.NewWeb(t, rcontest.WebOptions{Password: secret, Handler: func(string) string { return huge }}).Port()
		}},
		{"webrcon/not a websocket server", rcon.KindWebRCON, func(t *testing.T) int {
			return rcontest.NewSource(t, rcontest.SourceOptions{Password: secret}).Port()
		}},
		{"webrcon/HTTP 404", rcon.KindWebRCON, func(t *testing.T) int {
			return httpServer(t, http.NotFound)
		}},
		{"webrcon/HTTP 500 echoing the path", rcon.KindWebRCON, func(t *testing.T) int {
			return httpServer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "no such thing: "+r.URL.Path, http.StatusInternalServerError)
			})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			port := tc.setup(t)
			log, sink := newLogger(t)
			c := newClient(t, rcon.Config{Kind: tc.kind, Port: port, Password: secret,
				Timeout: 2 * time.Second, Logger: log})
			_, err := c.Exec(context.Background(), "status")
			t.Logf("error: %v (code %s)", err, rcon.Code(err))
			checkRedacted(t, err, sink.String())
		})
	}
}

// TestRedaction_DisconnectMidCommand covers the error of a connection that
// dies while a WebRCON command waits, and the log lines of a redial.
func TestRedaction_DisconnectMidCommand(t *testing.T) {
	srv := rcontest.NewWeb(t, rcontest.WebOptions{Password: secret, Handler: func(string) string { return "ok" }})
	log, sink := newLogger(t)
	c := newClient(t, rcon.Config{Kind: rcon.KindWebRCON, Port: srv.Port(), Password: secret, Logger: log})
	exec(t, c, "first")
	srv.SetStall(true)
	done := make(chan error, 1)
	go func() { _, err := c.Exec(context.Background(), "second"); done <- err }()
	poll.True(t, 5*time.Second, "second command in flight", func() bool { return len(srv.Requests()) == 2 })
	srv.DropConnections()
	err := waitErr(t, done)
	if !errors.Is(err, rcon.ErrDisconnected) {
		t.Fatalf("Exec across a dropped connection: %v, want ErrDisconnected", err)
	}
	checkRedacted(t, err, sink.String())
}
