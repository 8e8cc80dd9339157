package rcon_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gorcon "github.com/gorcon/rcon"
	gorcontest "github.com/gorcon/rcon/rcontest"

	"github.com/corrosion/corrosion/agent/rcon"
	"github.com/corrosion/corrosion/agent/rcon/rcontest"
	"github.com/corrosion/corrosion/internal/poll"
)

func sourceClient(t testing.TB, port int, password string, mod ...func(*rcon.Config)) *rcon.Client {
	cfg := rcon.Config{Kind: rcon.KindSource, Port: port, Password: password}
	for _, m := range mod {
		m(&cfg)
	}
	return newClient(t, cfg)
}

func TestSource_Auth(t *testing.T) {
	cases := []struct {
		name     string
		opts     rcontest.SourceOptions
		password string
		wantErr  error
	}{
		{"ok with pre-auth packet", rcontest.SourceOptions{Password: "pw"}, "pw", nil},
		{"ok without pre-auth packet", rcontest.SourceOptions{Password: "pw", NoPreAuthPacket: true}, "pw", nil},
		{"bad password with pre-auth packet", rcontest.SourceOptions{Password: "pw"}, "nope", rcon.ErrAuth},
		{"bad password without pre-auth packet", rcontest.SourceOptions{Password: "pw", NoPreAuthPacket: true}, "nope", rcon.ErrAuth},
		{"bad password, server closes", rcontest.SourceOptions{Password: "pw", RejectByClose: true}, "nope", rcon.ErrAuth},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Handler = func(string) string { return "pong" }
			srv := rcontest.NewSource(t, tc.opts)
			c := sourceClient(t, srv.Port(), tc.password)
			out, err := c.Exec(context.Background(), "ping")
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && out != "pong") {
				t.Fatalf("Exec = %q, %v; want pong, %v", out, err, tc.wantErr)
			}
			if tc.wantErr != nil && rcon.Code(err) != rcon.CodeAuth {
				t.Fatalf("Code(%v) = %q, want %q", err, rcon.Code(err), rcon.CodeAuth)
			}
		})
	}
}

func TestSource_Replies(t *testing.T) {
	mib := bigReply(rcon.MaxResponseBytes)
	cases := []struct {
		name  string
		opts  rcontest.SourceOptions
		reply string
	}{
		{"single packet", rcontest.SourceOptions{}, "hello world"},
		{"empty reply", rcontest.SourceOptions{}, ""},
		{"exactly one full packet", rcontest.SourceOptions{}, bigReply(4096)},
		{"two packets", rcontest.SourceOptions{}, bigReply(4097)},
		{"1 MiB in 4 KiB packets", rcontest.SourceOptions{PacketSize: 4096}, mib},
		{"1 MiB in odd 1000 byte packets", rcontest.SourceOptions{PacketSize: 1000}, mib},
		{"1 MiB in one packet", rcontest.SourceOptions{PacketSize: rcon.MaxResponseBytes}, mib},
		{"probe-less, single packet", rcontest.SourceOptions{NoProbeEcho: true}, "hello"},
		{"probe-less, empty reply", rcontest.SourceOptions{NoProbeEcho: true}, ""},
		{"probe-less, 1 MiB in 4 KiB packets", rcontest.SourceOptions{NoProbeEcho: true}, mib},
		{"no pre-auth packet, multi-packet", rcontest.SourceOptions{NoPreAuthPacket: true}, bigReply(3 * 4096)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Password = "pw"
			tc.opts.Handler = func(cmd string) string { return tc.reply }
			srv := rcontest.NewSource(t, tc.opts)
			c := sourceClient(t, srv.Port(), "pw")
			for i := range 3 { // the connection is reused and stays in step
				if out := exec(t, c, fmt.Sprintf("cmd%d", i)); out != tc.reply {
					t.Fatalf("command %d: reply of %d bytes, want %d bytes (equal: %v)", i, len(out), len(tc.reply), out == tc.reply)
				}
			}
			if n := srv.Accepted(); n != 1 {
				t.Fatalf("server accepted %d connections, want 1 (reused)", n)
			}
		})
	}
}

// TestSource_GorconTestServer runs the client against gorcon's own test
// server, which never mirrors probes and answers auth with id 0.
func TestSource_GorconTestServer(t *testing.T) {
	srv := gorcontest.NewServer(
		gorcontest.SetSettings(gorcontest.Settings{Password: "pw"}),
		gorcontest.SetCommandHandler(func(c *gorcontest.Context) {
			_, _ = gorconPacket(c.Request().ID, "echo: "+c.Request().Body()).WriteTo(c.Conn())
		}),
	)
	t.Cleanup(srv.Close)
	c := sourceClient(t, portOf(t, srv.Addr()), "pw", func(c *rcon.Config) { c.QuietPeriod = 50 * time.Millisecond })
	for _, cmd := range []string{"status", "players"} {
		if out := exec(t, c, cmd); out != "echo: "+cmd {
			t.Fatalf("Exec(%q) = %q", cmd, out)
		}
	}
}

func gorconPacket(id int32, body string) *gorcon.Packet {
	return gorcon.NewPacket(gorcon.SERVERDATA_RESPONSE_VALUE, id, body)
}

func portOf(t testing.TB, addr string) int {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSource_Errors(t *testing.T) {
	tooBig := bigReply(rcon.MaxResponseBytes + 1)
	cases := []struct {
		name     string
		opts     rcontest.SourceOptions
		setup    func(*rcontest.SourceServer)
		port     func(t *testing.T, srv *rcontest.SourceServer) int
		wantErr  error
		wantCode string
	}{
		{name: "stall", setup: func(s *rcontest.SourceServer) { s.SetStall(true) },
			wantErr: rcon.ErrTimeout, wantCode: rcon.CodeTimeout},
		{name: "reply over 1 MiB", opts: rcontest.SourceOptions{Handler: func(string) string { return tooBig }},
			wantErr: rcon.ErrTooLarge, wantCode: rcon.CodeTooLarge},
		{name: "packet over 1 MiB", opts: rcontest.SourceOptions{PacketSize: 2 << 20, Handler: func(string) string { return tooBig }},
			wantErr: rcon.ErrTooLarge, wantCode: rcon.CodeTooLarge},
		{name: "refused", port: func(t *testing.T, _ *rcontest.SourceServer) int { return freePort(t) },
			wantErr: rcon.ErrRefused, wantCode: rcon.CodeRefused},
		{name: "closed mid-response", opts: rcontest.SourceOptions{Handler: func(string) string { return bigReply(64 << 10) }},
			setup:   func(s *rcontest.SourceServer) { s.SetCloseMidResponse(true) },
			wantErr: rcon.ErrDisconnected, wantCode: rcon.CodeDisconnected},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Password = "pw"
			srv := rcontest.NewSource(t, tc.opts)
			if tc.setup != nil {
				tc.setup(srv)
			}
			port := srv.Port()
			if tc.port != nil {
				port = tc.port(t, srv)
			}
			timeout := 5 * time.Second
			if tc.wantErr == rcon.ErrTimeout {
				timeout = 300 * time.Millisecond
			}
			c := sourceClient(t, port, "pw", func(c *rcon.Config) { c.Timeout = timeout })
			start := time.Now()
			out, err := c.Exec(context.Background(), "cmd")
			if !errors.Is(err, tc.wantErr) || out != "" {
				t.Fatalf("Exec = %d bytes, %v; want %v", len(out), err, tc.wantErr)
			}
			if got := rcon.Code(err); got != tc.wantCode {
				t.Fatalf("Code = %q, want %q", got, tc.wantCode)
			}
			if d := time.Since(start); d > timeout+2*time.Second {
				t.Fatalf("Exec took %v with a %v timeout", d, timeout)
			}
		})
	}
}

func TestSource_RecoversAfterError(t *testing.T) {
	srv := rcontest.NewSource(t, rcontest.SourceOptions{Password: "pw", Handler: func(cmd string) string { return "ok " + cmd }})
	c := sourceClient(t, srv.Port(), "pw", func(c *rcon.Config) { c.Timeout = 300 * time.Millisecond })
	srv.SetStall(true)
	if _, err := c.Exec(context.Background(), "a"); !errors.Is(err, rcon.ErrTimeout) {
		t.Fatalf("stalled Exec: %v, want ErrTimeout", err)
	}
	srv.SetStall(false)
	if out := exec(t, c, "b"); out != "ok b" {
		t.Fatalf("Exec after timeout = %q", out)
	}
	srv.SetCloseMidResponse(true)
	if _, err := c.Exec(context.Background(), "c"); !errors.Is(err, rcon.ErrDisconnected) {
		t.Fatalf("Exec cut mid-response: %v, want ErrDisconnected", err)
	}
	srv.SetCloseMidResponse(false)
	if out := exec(t, c, "d"); out != "ok d" {
		t.Fatalf("Exec after a cut = %q", out)
	}
	// The server ran "c" and then dropped the connection: it must not be
	// resent behind the caller's back.
	if got := srv.Commands(); !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Fatalf("server ran %q, want [b c d]", got)
	}
}

func TestSource_ReconnectAfterServerDrop(t *testing.T) {
	srv := rcontest.NewSource(t, rcontest.SourceOptions{Password: "pw", Handler: func(cmd string) string { return "ok " + cmd }})
	c := sourceClient(t, srv.Port(), "pw")
	for i := range 3 {
		if out := exec(t, c, fmt.Sprint(i)); out != fmt.Sprint("ok ", i) {
			t.Fatalf("Exec %d = %q", i, out)
		}
		srv.DropConnections()
		poll.True(t, 5*time.Second, "server connection closed", func() bool { return srv.Open() == 0 })
	}
	if n := srv.Accepted(); n != 3 {
		t.Fatalf("accepted %d connections, want 3", n)
	}
}

func TestSource_RequestIDsUniqueAndIncreasing(t *testing.T) {
	srv := rcontest.NewSource(t, rcontest.SourceOptions{Password: "pw"})
	c := sourceClient(t, srv.Port(), "pw")
	for i := range 5 {
		exec(t, c, fmt.Sprint(i))
		if i == 2 {
			srv.DropConnections()
			poll.True(t, 5*time.Second, "server connection closed", func() bool { return srv.Open() == 0 })
		}
	}
	ids := srv.RequestIDs()
	if len(ids) != 2+5*2 { // two auths, then command + probe each
		t.Fatalf("server saw %d packets, want 12: %v", len(ids), ids)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] || ids[i] <= 0 {
			t.Fatalf("ids not positive and increasing: %v", ids)
		}
	}
}

func TestSource_ConcurrentExecSerialised(t *testing.T) {
	var inFlight, maxInFlight atomic.Int32
	srv := rcontest.NewSource(t, rcontest.SourceOptions{Password: "pw", PacketSize: 512, Handler: func(cmd string) string {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
		}
		return cmd + ":" + bigReply(2000) // several packets each
	}})
	c := sourceClient(t, srv.Port(), "pw")
	const workers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				cmd := fmt.Sprintf("w%d-%d", w, i)
				out, err := c.Exec(context.Background(), cmd)
				if err != nil || out != cmd+":"+bigReply(2000) {
					errs <- fmt.Errorf("Exec(%q) = %.20q…, %v", cmd, out, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := len(srv.Commands()); got != workers*each {
		t.Fatalf("server ran %d commands, want %d", got, workers*each)
	}
	if srv.Accepted() != 1 || maxInFlight.Load() != 1 {
		t.Fatalf("accepted %d connections, max %d commands in flight; want 1 and 1", srv.Accepted(), maxInFlight.Load())
	}
}

// TestSource_QuietPeriod: a server that echoes probes is waited for even
// when it pauses longer than the quiet period mid-reply; a server that
// never echoes has its reply ended by the quiet period, and a tail that
// arrives later never leaks into the next command's reply.
func TestSource_QuietPeriod(t *testing.T) {
	reply := bigReply(3 * 100)
	cases := []struct {
		name      string
		noEcho    bool
		truncated bool // the slow reply is cut short (to a prefix)
	}{
		{"echoing server: pauses do not truncate", false, false},
		{"probe-less server: quiet period ends the reply", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := rcontest.NewSource(t, rcontest.SourceOptions{Password: "pw", PacketSize: 100, NoProbeEcho: tc.noEcho,
				Handler: func(cmd string) string {
					if cmd == "slow" {
						return reply
					}
					return "fast " + cmd
				}})
			c := sourceClient(t, srv.Port(), "pw", func(c *rcon.Config) { c.QuietPeriod = 100 * time.Millisecond })
			if out := exec(t, c, "warm"); out != "fast warm" {
				t.Fatalf("warm-up = %q", out)
			}
			srv.SetPacketDelay(300 * time.Millisecond)
			out := exec(t, c, "slow")
			complete := out == reply
			if !strings.HasPrefix(reply, out) || out == "" || complete == tc.truncated {
				t.Fatalf("slow reply = %d bytes of %d (prefix: %v), want truncated: %v",
					len(out), len(reply), strings.HasPrefix(reply, out), tc.truncated)
			}
			srv.SetPacketDelay(0)
			if out := exec(t, c, "next"); out != "fast next" {
				t.Fatalf("reply after the slow one = %.40q…, want %q", out, "fast next")
			}
		})
	}
}

// TestSource_TimeoutThenLateReply: a reply that comes after the caller gave
// up is never taken for the next command's.
func TestSource_TimeoutThenLateReply(t *testing.T) {
	release := make(chan struct{})
	srv := rcontest.NewSource(t, rcontest.SourceOptions{Password: "pw", Handler: func(cmd string) string {
		if cmd == "blocked" {
			<-release
		}
		return "reply to " + cmd
	}})
	t.Cleanup(func() { close(release) })
	c := sourceClient(t, srv.Port(), "pw")
	exec(t, c, "first")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := c.Exec(ctx, "blocked"); !errors.Is(err, rcon.ErrTimeout) {
		t.Fatalf("Exec(blocked) = %v, want ErrTimeout", err)
	}
	if out := exec(t, c, "after"); out != "reply to after" {
		t.Fatalf("Exec(after) = %q", out)
	}
}
