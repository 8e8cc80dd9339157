package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/console"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/server"
)

// A console stream lives no longer than what it was opened for: its
// session and its grant. Each case opens the stream of an operator of
// licA (a real panel, Postgres and NATS; the lines published on the
// console subject as an agent does), ends what allowed it, and waits for
// the stream to end.

// streamEndDeadline is the most a stream may outlive its session or grant.
const streamEndDeadline = 15 * time.Second

type sessionEnv struct {
	p  *paneltest.Panel
	op *paneltest.Client
	id int64 // the operator's user id
}

func newSessionEnv(t *testing.T) *sessionEnv {
	t.Helper()
	p := paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		return []httpx.Feature{console.New(server.TabDeps{NATS: d.NC, Logger: d.Logger})}
	}})
	p.AddLicense(t, licA)
	pw := p.AddUser(t, "olga", auth.RoleOperator, licA)
	u, err := p.Store.UserByName(context.Background(), "olga")
	if err != nil {
		t.Fatal(err)
	}
	return &sessionEnv{p: p, op: p.Client(t, "olga", pw), id: u.ID}
}

// open opens the console stream of licA's "game" and waits until a line
// published now reaches it.
func (e *sessionEnv) open(t *testing.T) <-chan sseEvent {
	t.Helper()
	events, status, _ := openStream(t, e.op, e.p.URL+"/hosts/"+licA+"/instances/game/console/stream")
	if status != http.StatusOK {
		t.Fatalf("console stream: %d", status)
	}
	deadline := time.Now().Add(15 * time.Second)
	for { // the hub subscribes when the stream opens: publish until a line arrives
		e.publish(t, "before the end")
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the stream ended before its first line")
			}
			if texts, _, _ := ev.lines(t); strings.Contains(strings.Join(texts, "\n"), "before the end") {
				return events
			}
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no line reached the console stream")
		}
	}
}

func (e *sessionEnv) publish(t *testing.T, text string) {
	t.Helper()
	m := wire.ConsoleMessage{Timestamp: time.Now(), InstanceID: "game",
		Lines: []wire.ConsoleLine{{Stream: wire.StreamStdout, Text: text}}}
	if err := e.p.NC.Publish(wire.ConsoleSubject(licA, "game"), m.AppendJSON(nil)); err != nil {
		t.Fatal(err)
	}
	if err := e.p.NC.Flush(); err != nil {
		t.Fatal(err)
	}
}

// waitEnd publishes a line now and then until the stream ends, failing
// when it outlives the deadline or when one of those lines arrives.
func (e *sessionEnv) waitEnd(t *testing.T, events <-chan sseEvent, what string) {
	t.Helper()
	deadline := time.After(streamEndDeadline)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	e.publish(t, "after the end")
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			if texts, _, _ := ev.lines(t); strings.Contains(strings.Join(texts, "\n"), "after the end") && what == "logout" {
				t.Fatalf("a console line published after the logout reached the stream: %v", texts)
			}
		case <-tick.C:
			e.publish(t, "after the end")
		case <-deadline:
			t.Fatalf("the console stream outlived the %s by %v", what, streamEndDeadline)
		}
	}
}

func TestStream_EndsAtLogout(t *testing.T) {
	e := newSessionEnv(t)
	events := e.open(t)
	if status, _ := e.op.PostForm("/logout", url.Values{}); status != http.StatusOK && status != http.StatusSeeOther {
		t.Fatalf("logout: %d", status)
	}
	e.waitEnd(t, events, "logout")
}

func TestStream_EndsWhenTheGrantIsRevoked(t *testing.T) {
	e := newSessionEnv(t)
	events := e.open(t)
	if err := e.p.Store.Revoke(context.Background(), e.id, licA); err != nil {
		t.Fatal(err)
	}
	e.waitEnd(t, events, "revoked grant")
	if _, status, _ := openStream(t, e.op, e.p.URL+"/hosts/"+licA+"/instances/game/console/stream"); status != http.StatusForbidden {
		t.Fatalf("reopened after the revoke: %d, want 403", status)
	}
}

func TestStream_EndsWhenTheSessionExpires(t *testing.T) {
	e := newSessionEnv(t)
	events := e.open(t)
	if _, err := e.p.Store.Pool().Exec(context.Background(),
		`UPDATE panel_sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`, e.id); err != nil {
		t.Fatal(err)
	}
	e.waitEnd(t, events, "session's expiry")
}
