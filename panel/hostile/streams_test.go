package hostile

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// streamEndDeadline is the most a live stream may outlive its session or
// grant (issue 17 point 3).
const streamEndDeadline = 15 * time.Second

// stream is one open live stream (SSE) of a client: its data lines, closed
// when the server ends it.
type stream struct {
	lines <-chan string
}

// openStream opens path as the client; it fails unless the stream opens.
func openStream(t *testing.T, e *env, as who, path string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.P.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp := e.client(t, as).Do(req)
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("open %s: %d", path, resp.StatusCode)
	}
	ch := make(chan string, 4096)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			select {
			case ch <- sc.Text():
			default: // a slow test reader drops lines, never blocks the stream
			}
		}
	}()
	return &stream{lines: ch}
}

// waitEnd waits for the stream to end, failing after streamEndDeadline or
// when a line holding forbidden reaches it (published after the end).
func (s *stream) waitEnd(t *testing.T, what, forbidden string, publish func()) {
	t.Helper()
	deadline := time.After(streamEndDeadline)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				return
			}
			if forbidden != "" && strings.Contains(l, forbidden) {
				t.Fatalf("%s: a line published after the end reached the stream: %s", what, l)
			}
		case <-tick.C:
			if publish != nil {
				publish()
			}
		case <-deadline:
			t.Fatalf("%s: the stream outlived it by %v", what, streamEndDeadline)
		}
	}
}

// publishConsole publishes one console line of Other's world1, as its agent would.
func publishConsole(t *testing.T, e *env, text string) {
	t.Helper()
	m := wire.ConsoleMessage{Timestamp: time.Now(), InstanceID: "world1",
		Lines: []wire.ConsoleLine{{Stream: wire.StreamStdout, Text: text}}}
	if err := e.P.NC.Publish(wire.ConsoleSubject(Other, "world1"), m.AppendJSON(nil)); err != nil {
		t.Fatal(err)
	}
}

// The operator's open streams — the console of one of their instances and
// the fleet — end when they log out, when an admin revokes their grant, and
// when their session expires; a console line published after a logout never
// reaches them. Before issue 17 point 3, a console stream survived the
// logout (a line published 45 s later still arrived).
func TestHostile_StreamsEndWithTheirSession(t *testing.T) {
	ctx := context.Background()
	ends := []struct {
		name      string
		forbidden string // a console line that must not arrive after the end
		end       func(t *testing.T, e *env)
	}{
		{"logout", "after the logout", func(t *testing.T, e *env) {
			if status, _ := e.Op.PostForm("/logout", nil); status != http.StatusOK && status != http.StatusSeeOther {
				t.Fatalf("logout: %d", status)
			}
		}},
		{"revoked grant", "", func(t *testing.T, e *env) {
			u, err := e.P.Store.UserByName(ctx, OpName)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.P.Store.Revoke(ctx, u.ID, Other); err != nil {
				t.Fatal(err)
			}
		}},
		{"expired session", "", func(t *testing.T, e *env) {
			if _, err := e.P.Store.Pool().Exec(ctx, `UPDATE panel_sessions SET expires_at = now() - interval '1 second'
				WHERE user_id = (SELECT id FROM panel_users WHERE name = $1)`, OpName); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range ends {
		t.Run(c.name, func(t *testing.T) {
			e := start(t)
			console := openStream(t, e, asOp, "/hosts/"+Other+"/instances/world1/console/stream")
			fleet := openStream(t, e, asOp, "/live/fleet")
			c.end(t, e)
			publish := func() { publishConsole(t, e, c.forbidden) }
			if c.forbidden == "" {
				publish = nil
			}
			console.waitEnd(t, "console stream after the "+c.name, c.forbidden, publish)
			fleet.waitEnd(t, "fleet stream after the "+c.name, "", nil)
		})
	}
}
