package rcon_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/corrosion/corrosion/agent/rcon"
	"github.com/corrosion/corrosion/agent/rcon/rcontest"
)

// trap is an HTTP server on another loopback port that counts every
// request reaching it: where a redirect would send the password.
func trap(t *testing.T) (url string, hits *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hits = &atomic.Int64{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		t.Errorf("the client followed the redirect: %s %s (Referer %q)", r.Method, r.URL.Path, r.Referer())
		http.Error(w, "trap", http.StatusTeapot)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/elsewhere", hits
}

// TestWeb_RefusesRedirect: a WebRCON server answering 302 gets a protocol
// error naming the status; the client never goes where it points, so the
// password (in the path and the Referer) stays on the configured port.
func TestWeb_RefusesRedirect(t *testing.T) {
	to, hits := trap(t)
	srv := rcontest.NewWeb(t, rcontest.WebOptions{Password: "s3cret", RedirectTo: to})
	c := webClient(t, srv.Port(), "s3cret")
	_, err := c.Exec(context.Background(), "status")
	if !errors.Is(err, rcon.ErrProtocol) || rcon.Code(err) != rcon.CodeProtocol {
		t.Fatalf("Exec error = %v (code %q), want %s", err, rcon.Code(err), rcon.CodeProtocol)
	}
	if !strings.Contains(err.Error(), "HTTP 302") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %q should name the status and never the password", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the redirect target", n)
	}
}
