package rcon_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/rcon"
	"github.com/corrosion/corrosion/agent/rcon/rcontest"
	"github.com/corrosion/corrosion/internal/poll"
)

// broadcasts collects OnBroadcast texts.
type broadcasts struct {
	mu    sync.Mutex
	texts []string // guarded by mu
}

func (b *broadcasts) add(text string) {
	b.mu.Lock()
	b.texts = append(b.texts, text)
	b.mu.Unlock()
}

func (b *broadcasts) get() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.texts...)
}

func webClient(t testing.TB, port int, password string, mod ...func(*rcon.Config)) *rcon.Client {
	cfg := rcon.Config{Kind: rcon.KindWebRCON, Port: port, Password: password}
	for _, m := range mod {
		m(&cfg)
	}
	return newClient(t, cfg)
}

func TestWeb_Replies(t *testing.T) {
	mib := bigReply(rcon.MaxResponseBytes)
	cases := []struct {
		name  string
		noise bool
		reply string
	}{
		{"plain", false, "hello"},
		{"empty reply", false, ""},
		{"noise skipped", true, "hello"},
		{"reply starting like an echo is not one", false, "[rcon]no space"},
		{"1 MiB reply", true, mib},
		{"JSON-heavy reply", true, strings.Repeat("\"quoted\"\n\t<tag>&", 1000)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := rcontest.NewWeb(t, rcontest.WebOptions{Password: "pw", Noise: tc.noise,
				Handler: func(string) string { return tc.reply }})
			var got broadcasts
			c := webClient(t, srv.Port(), "pw", func(c *rcon.Config) { c.OnBroadcast = got.add })
			for i := range 3 {
				out, err := c.Exec(context.Background(), fmt.Sprint("cmd", i))
				if err != nil || out != tc.reply {
					t.Fatalf("command %d: reply of %d bytes, %v; want %d bytes (server saw %d requests on %d connections)",
						i, len(out), err, len(tc.reply), len(srv.Requests()), srv.Accepted())
				}
			}
			if srv.Accepted() != 1 {
				t.Fatalf("accepted %d connections, want 1", srv.Accepted())
			}
			if !tc.noise {
				return
			}
			// Every noise frame reaches the callback: 3 per command.
			poll.True(t, 5*time.Second, "9 broadcasts", func() bool { return len(got.get()) == 9 })
			texts := got.get()
			for _, want := range []string{`"Message":"hello"`, "Saving 1234 entities", "[rcon] 127.0.0.1:50000: cmd2"} {
				if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, want) }) {
					t.Fatalf("no broadcast containing %q in %q", want, texts)
				}
			}
		})
	}
}

func TestWeb_BroadcastWithoutCommand(t *testing.T) {
	srv := rcontest.NewWeb(t, rcontest.WebOptions{Password: "pw"})
	var got broadcasts
	c := webClient(t, srv.Port(), "pw", func(c *rcon.Config) { c.OnBroadcast = got.add })
	exec(t, c, "connect")
	srv.Broadcast("server is saving")
	poll.True(t, 5*time.Second, "broadcast forwarded", func() bool {
		return slices.Equal(got.get(), []string{"server is saving"})
	})
}

func TestWeb_Auth(t *testing.T) {
	cases := []struct {
		name     string
		opts     rcontest.WebOptions
		password string
		wantErr  error
	}{
		{"ok", rcontest.WebOptions{Password: "pw"}, "pw", nil},
		{"ok, password needing escapes", rcontest.WebOptions{Password: "p w/?#%"}, "p w/?#%", nil},
		{"ok, under a path prefix", rcontest.WebOptions{Password: "pw", PathPrefix: "/rcon/"}, "pw", nil},
		{"bad password, HTTP 401", rcontest.WebOptions{Password: "pw"}, "nope", rcon.ErrAuth},
		{"bad password, server closes", rcontest.WebOptions{Password: "pw", RejectByClose: true}, "nope", rcon.ErrAuth},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Handler = func(string) string { return "pong" }
			srv := rcontest.NewWeb(t, tc.opts)
			c := webClient(t, srv.Port(), tc.password, func(c *rcon.Config) { c.WebRCONPath = tc.opts.PathPrefix })
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

func TestWeb_Errors(t *testing.T) {
	tooBig := bigReply(rcon.MaxResponseBytes + 1)
	huge := bigReply(3 << 20)
	cases := []struct {
		name     string
		opts     rcontest.WebOptions
		stall    bool
		refused  bool
		wantErr  error
		wantCode string
	}{
		{name: "stall", stall: true, wantErr: rcon.ErrTimeout, wantCode: rcon.CodeTimeout},
		{name: "reply over 1 MiB", opts: rcontest.WebOptions{Handler: func(string) string { return tooBig }},
			wantErr: rcon.ErrTooLarge, wantCode: rcon.CodeTooLarge},
		{name: "frame over the frame limit", opts: rcontest.WebOptions{Handler: func(string) string { return huge }},
			wantErr: rcon.ErrTooLarge, wantCode: rcon.CodeTooLarge},
		{name: "refused", refused: true, wantErr: rcon.ErrRefused, wantCode: rcon.CodeRefused},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Password = "pw"
			srv := rcontest.NewWeb(t, tc.opts)
			srv.SetStall(tc.stall)
			port := srv.Port()
			if tc.refused {
				port = freePort(t)
			}
			timeout := 5 * time.Second
			if tc.stall {
				timeout = 300 * time.Millisecond
			}
			c := webClient(t, port, "pw", func(c *rcon.Config) { c.Timeout = timeout })
			out, err := c.Exec(context.Background(), "cmd")
			if !errors.Is(err, tc.wantErr) || out != "" {
				t.Fatalf("Exec = %d bytes, %v; want %v", len(out), err, tc.wantErr)
			}
			if got := rcon.Code(err); got != tc.wantCode {
				t.Fatalf("Code = %q, want %q", got, tc.wantCode)
			}
		})
	}
}

func TestWeb_RecoversAfterError(t *testing.T) {
	tooBig := bigReply(rcon.MaxResponseBytes + 1)
	srv := rcontest.NewWeb(t, rcontest.WebOptions{Password: "pw", Handler: func(cmd string) string {
		if cmd == "big" {
			return tooBig
		}
		return "ok " + cmd
	}})
	c := webClient(t, srv.Port(), "pw", func(c *rcon.Config) { c.Timeout = 2 * time.Second })
	if _, err := c.Exec(context.Background(), "big"); !errors.Is(err, rcon.ErrTooLarge) {
		t.Fatalf("Exec(big): %v, want ErrTooLarge", err)
	}
	srv.SetStall(true)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := c.Exec(ctx, "stalled"); !errors.Is(err, rcon.ErrTimeout) {
		t.Fatalf("stalled Exec: %v, want ErrTimeout", err)
	}
	srv.SetStall(false)
	if out := exec(t, c, "a"); out != "ok a" {
		t.Fatalf("Exec after errors = %q", out)
	}
	if srv.Accepted() != 1 {
		t.Fatalf("accepted %d connections, want 1: a too-large reply or a timeout keeps the connection", srv.Accepted())
	}
}

func TestWeb_ReconnectAfterServerDrop(t *testing.T) {
	srv := rcontest.NewWeb(t, rcontest.WebOptions{Password: "pw", Handler: func(cmd string) string { return "ok " + cmd }})
	c := webClient(t, srv.Port(), "pw")
	for i := range 3 {
		if out := exec(t, c, fmt.Sprint(i)); out != fmt.Sprint("ok ", i) {
			t.Fatalf("Exec %d = %q", i, out)
		}
		srv.DropConnections()
	}
	if n := srv.Accepted(); n != 3 {
		t.Fatalf("accepted %d connections, want 3", n)
	}
}

func TestWeb_ConcurrentExecIdentifiers(t *testing.T) {
	srv := rcontest.NewWeb(t, rcontest.WebOptions{Password: "pw", Noise: true, Handler: func(cmd string) string { return "out " + cmd }})
	var got broadcasts
	c := webClient(t, srv.Port(), "pw", func(c *rcon.Config) { c.OnBroadcast = got.add })
	const workers, each = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				cmd := fmt.Sprintf("w%d-%d", w, i)
				if out, err := c.Exec(context.Background(), cmd); err != nil || out != "out "+cmd {
					errs <- fmt.Errorf("Exec(%q) = %q, %v", cmd, out, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	reqs := srv.Requests()
	seen := map[int64]bool{}
	for _, r := range reqs {
		if r.Identifier <= 1000 || seen[r.Identifier] || r.Name != "WebRcon" {
			t.Fatalf("request %+v: identifiers must be unique and > 1000, name WebRcon", r)
		}
		seen[r.Identifier] = true
	}
	if len(reqs) != workers*each || srv.Accepted() != 1 {
		t.Fatalf("server saw %d requests on %d connections, want %d on 1", len(reqs), srv.Accepted(), workers*each)
	}
	poll.True(t, 5*time.Second, "all noise forwarded", func() bool { return len(got.get()) == 3*workers*each })
}

// TestWeb_LateReplyForwarded: a reply that comes after its Exec gave up
// goes to OnBroadcast, not to another command.
func TestWeb_LateReplyForwarded(t *testing.T) {
	release := make(chan struct{})
	srv := rcontest.NewWeb(t, rcontest.WebOptions{Password: "pw", Handler: func(cmd string) string {
		if cmd == "blocked" {
			<-release
		}
		return "reply to " + cmd
	}})
	var got broadcasts
	c := webClient(t, srv.Port(), "pw", func(c *rcon.Config) { c.OnBroadcast = got.add })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := c.Exec(ctx, "blocked"); !errors.Is(err, rcon.ErrTimeout) {
		t.Fatalf("Exec(blocked) = %v, want ErrTimeout", err)
	}
	close(release)
	poll.True(t, 5*time.Second, "late reply forwarded", func() bool {
		return slices.Equal(got.get(), []string{"reply to blocked"})
	})
	if out := exec(t, c, "after"); out != "reply to after" {
		t.Fatalf("Exec(after) = %q", out)
	}
}
