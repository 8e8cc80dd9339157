package natsconn

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/nats-io/nats.go"
)

func TestClassifyConnErr(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	cases := []struct {
		err  error
		want failKind
	}{
		{nats.ErrAuthorization, failAuth},
		{errors.New("nats: authorization violation"), failAuth}, // nats.go's protocol error during CONNECT
		{nats.ErrAuthExpired, failAuth},
		{refused, failUnreachable},
		{fmt.Errorf("wrapped: %w", refused), failUnreachable},
		{&net.DNSError{Err: "no such host", Name: "nats.invalid"}, failUnreachable},
		{nats.ErrNoServers, failUnreachable},
		{nats.ErrSecureConnWanted, failTLS},
		{nats.ErrSecureConnRequired, failTLS},
		{x509.UnknownAuthorityError{}, failTLS},
		{errors.New("tls: first record does not look like a TLS handshake"), failTLS},
		{errors.New("nats: maximum connections exceeded"), failOther},
		{nil, failOther}, // never a panic in a callback
	}
	for _, tc := range cases {
		if got := classifyConnErr(tc.err); got != tc.want {
			t.Errorf("classifyConnErr(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestConnLog_OncePerKindPerEpisode: retries of the same failure are
// silent; another kind is logged; a connect ends the episode; the server
// is named by its configured URL with the credentials hidden.
func TestConnLog_OncePerKindPerEpisode(t *testing.T) {
	var buf bytes.Buffer
	cl := newConnLog(slog.New(slog.NewTextHandler(&buf, nil)), []string{"nats://agent:s3cr%2Fet@127.0.0.1:4222", "tls://nats.example"})
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for range 5 {
		cl.failed("127.0.0.1:4222", refused)
	}
	cl.failed("127.0.0.1:4222", nats.ErrAuthorization)
	cl.failed("nats.example:4222", nats.ErrAuthorization)
	cl.connected(nil)
	cl.failed("nats.example:4222", x509.UnknownAuthorityError{})
	cl.disconnected(errors.New("EOF"))
	cl.failed("10.9.9.9:4222", refused)
	out := buf.String()
	t.Log(out)
	for _, want := range []struct {
		n    int
		subs []string
	}{
		{2, []string{"cannot connect", "reason=unreachable"}},
		{1, []string{"cannot connect", "reason=unreachable", "server=nats://xxxxx@127.0.0.1:4222"}},
		{1, []string{"cannot connect", "reason=unreachable", "server=10.9.9.9:4222"}},
		{1, []string{"cannot connect", `reason="authorization violation"`, "server=nats://xxxxx@127.0.0.1:4222"}},
		{1, []string{"cannot connect", "reason=tls", "server=tls://nats.example"}},
		{1, []string{"nats connected"}},
	} {
		if got := countLines(out, want.subs...); got != want.n {
			t.Errorf("%d lines with %q, want %d", got, want.subs, want.n)
		}
	}
	if strings.Contains(out, "s3cr") || strings.Contains(out, "%2Fet") {
		t.Errorf("log shows the password:\n%s", out)
	}
}

func countLines(out string, subs ...string) int {
	n := 0
	for _, line := range strings.Split(out, "\n") {
		all := line != ""
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			n++
		}
	}
	return n
}
