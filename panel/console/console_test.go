package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/console"
	"github.com/corrosion/corrosion/panel/paneltest"
)

const gameURL = "/hosts/" + licA + "/instances/game"

// The stream opens with the agent's backlog, then carries live lines: a
// line sent to stdin comes back as the fake game's echo. The NATS
// subscription exists only while a stream is open.
func TestConsole_StreamBacklogLiveAndSend(t *testing.T) {
	e := newEnv(t)
	if n := e.hub().Subscriptions(); n != 0 {
		t.Fatalf("%d console subscriptions before any browser", n)
	}
	events, status, closeStream := openStream(t, e.op, e.p.URL+gameURL+"/console/stream")
	if status != http.StatusOK {
		t.Fatalf("stream: status %d", status)
	}
	seen := waitFor(t, events, "hello from the game") // the banner, from the backlog
	if seen[0].name != console.EventBacklog {
		t.Fatalf("first event is %q, want the backlog", seen[0].name)
	}
	if n := e.hub().Subscriptions(); n != 1 {
		t.Fatalf("%d console subscriptions with one stream open, want 1", n)
	}
	if got := gauge(t, e.p, "corrosion_panel_console_streams"); got != 1 {
		t.Fatalf("console streams gauge %v, want 1", got)
	}
	_, second, closeSecond := openStream(t, e.op, e.p.URL+gameURL+"/console/stream")
	if second != http.StatusOK || e.hub().Subscriptions() != 1 || e.hub().Watchers() != 2 {
		t.Fatalf("second stream: status %d, %d subscriptions, %d watchers", second, e.hub().Subscriptions(), e.hub().Watchers())
	}
	req := e.op.NewPost(gameURL+"/console/send", url.Values{"line": {"hello-panel"}})
	req.Header.Set("HX-Request", "true")
	resp := e.op.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("send: status %d", resp.StatusCode)
	}
	waitFor(t, events, "echo: hello-panel")
	closeStream()
	closeSecond()
	poll.True(t, 10*time.Second, "the console unsubscribed when the last stream closed", func() bool {
		return e.hub().Subscriptions() == 0 && e.hub().Watchers() == 0
	})
	if rows := auditRows(t, e.p, "instance.send"); !slices.Equal(rows, []string{"ok olga hello-panel"}) {
		t.Fatalf("send audit rows: %q", rows)
	}
}

func TestConsole_SendErrorsInWords(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, instance, line string
		status               int
		words                string
	}{
		{"not running", "idle", "hi", http.StatusConflict, "the instance is not running"},
		{"empty", "game", "  ", http.StatusBadRequest, "type something"},
		{"two lines", "game", "a\nb", http.StatusBadRequest, "one line at a time"},
		{"no such instance", "nope", "hi", http.StatusNotFound, "the agent does not run this instance"}, // the agent answers unknown_instance
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := e.op.PostForm("/hosts/"+licA+"/instances/"+tc.instance+"/console/send", url.Values{"line": {tc.line}})
			if status != tc.status || !strings.Contains(body, tc.words) {
				t.Fatalf("status %d %q, want %d with %q", status, body, tc.status, tc.words)
			}
		})
	}
}

// A viewer may watch but not type; an operator of another license can
// neither watch nor type, even with a crafted URL.
func TestConsole_RolesAndGrants(t *testing.T) {
	e := newEnv(t)
	_, status, _ := openStream(t, e.view, e.p.URL+gameURL+"/console/stream")
	if status != http.StatusOK {
		t.Fatalf("viewer's stream: status %d, want 200", status)
	}
	if status, body := e.view.Get(gameURL + "/console"); status != http.StatusOK || !strings.Contains(body, "you are a viewer") {
		t.Fatalf("viewer's console page: %d", status)
	}
	for _, post := range []struct{ path, field string }{{"/console/send", "line"}, {"/rcon", "command"}} {
		if status, body := e.view.PostForm(gameURL+post.path, url.Values{post.field: {"status"}}); status != http.StatusForbidden || !strings.Contains(body, "viewer") {
			t.Fatalf("viewer's POST %s: %d %q, want 403", post.path, status, body)
		}
		if status, _ := e.other.PostForm(gameURL+post.path, url.Values{post.field: {"status"}}); status != http.StatusForbidden {
			t.Fatalf("other license's POST %s: %d, want 403", post.path, status)
		}
	}
	for _, path := range []string{"/console", "/rcon"} {
		if status, _ := e.other.Get(gameURL + path); status != http.StatusForbidden {
			t.Fatalf("other license's GET %s: %d, want 403", path, status)
		}
	}
	_, status, _ = openStream(t, e.other, e.p.URL+gameURL+"/console/stream")
	if status != http.StatusForbidden {
		t.Fatalf("other license's stream: status %d, want 403", status)
	}
	if e.hub().Subscriptions() > 1 {
		t.Fatalf("a refused stream subscribed")
	}
	denied := 0
	for _, r := range auditRows(t, e.p, "instance.send") {
		if strings.HasPrefix(r, "denied ") {
			denied++
		}
	}
	if denied != 2 {
		t.Fatalf("%d denied send audit rows, want 2", denied)
	}
}

func TestRCON_CommandOutputAndRedactedAudit(t *testing.T) {
	e := newEnv(t)
	req := e.op.NewPost(gameURL+"/rcon", url.Values{"command": {"status"}})
	req.Header.Set("HX-Request", "true")
	resp := e.op.Do(req)
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "ran: status") || !strings.Contains(body, "rcon-entry") {
		t.Fatalf("rcon: %d %q", resp.StatusCode, body)
	}
	if status, body := e.op.PostForm(gameURL+"/rcon", url.Values{"command": {"rcon.password hunter2"}}); status != http.StatusOK || !strings.Contains(body, "ran: rcon.password hunter2") {
		t.Fatalf("plain-form rcon: %d", status)
	}
	if got := e.rcon.Commands(); !slices.Contains(got, "status") || !slices.Contains(got, "rcon.password hunter2") {
		t.Fatalf("the RCON server got %q", got)
	}
	rows := auditRows(t, e.p, "instance.rcon")
	want := []string{"ok olga status", "ok olga rcon.password xxxxx"}
	if !slices.Equal(rows, want) {
		t.Fatalf("rcon audit rows %q, want %q", rows, want)
	}
	if status, body := e.op.PostForm("/hosts/"+licA+"/instances/idle/rcon", url.Values{"command": {"status"}}); status != http.StatusConflict || !strings.Contains(body, "RCON is not configured") {
		t.Fatalf("rcon without config: %d %q", status, body)
	}
	e.rcon.Close()
	status, body := e.op.PostForm(gameURL+"/rcon", url.Values{"command": {"status"}})
	if status != http.StatusBadGateway || !strings.Contains(body, "nothing listens on the instance's RCON port") {
		t.Fatalf("rcon to a closed server: %d %q", status, body)
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// gauge reads a metric of the running panel's registry.
func gauge(t *testing.T, p *paneltest.Panel, name string) float64 {
	t.Helper()
	mfs, err := p.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			m := mf.GetMetric()[0]
			if m.GetGauge() != nil {
				return m.GetGauge().GetValue()
			}
			return m.GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// Two replicas behind a load balancer: each serves its own browsers'
// streams from its own subscription; a line sent through one reaches the
// browsers of both.
func TestConsole_TwoReplicas(t *testing.T) {
	e := newEnv(t)
	r2 := e.p.Replica(t)
	c2 := r2.Client(t, "olga", e.opPW)
	one, status1, _ := openStream(t, e.op, e.p.URL+gameURL+"/console/stream")
	two, status2, _ := openStream(t, c2, r2.URL+gameURL+"/console/stream")
	if status1 != http.StatusOK || status2 != http.StatusOK {
		t.Fatalf("streams: %d and %d", status1, status2)
	}
	waitFor(t, one, "hello from the game")
	waitFor(t, two, "hello from the game")
	if status, body := e.op.PostForm(gameURL+"/console/send", url.Values{"line": {"both-replicas"}}); status != http.StatusSeeOther {
		t.Fatalf("send: %d %q", status, body)
	}
	waitFor(t, one, "echo: both-replicas")
	waitFor(t, two, "echo: both-replicas")
}

// A console the agent has no backlog for (an instance it does not run)
// opens anyway, says why there is no backlog, and shows live lines when
// they come.
func TestConsole_NoAgentSaysWhy(t *testing.T) {
	e := newEnv(t)
	events, status, _ := openStream(t, e.op, e.p.URL+"/hosts/"+licA+"/instances/ghost/console/stream")
	if status != http.StatusOK {
		t.Fatalf("stream: %d", status)
	}
	var notice string
	for ev := range events {
		if ev.name == console.EventNotice {
			notice = ev.data
			break
		}
	}
	if !strings.Contains(notice, "no backlog: the agent does not run this instance") {
		t.Fatalf("notice %q", notice)
	}
	poll.True(t, 5*time.Second, "the stream is watching", func() bool { return e.hub().Watchers() == 1 })
	m := wire.ConsoleMessage{Timestamp: time.Now(), InstanceID: "ghost", Lines: []wire.ConsoleLine{{Stream: "stderr", Text: "late line"}}}
	if err := e.p.NC.Publish(wire.ConsoleSubject(licA, "ghost"), m.AppendJSON(nil)); err != nil {
		t.Fatal(err)
	}
	seen := waitFor(t, events, "late line")
	if _, streams, _ := seen[len(seen)-1].lines(t); streams[len(streams)-1] != "e" {
		t.Fatalf("stderr line sent as stream %q", streams[len(streams)-1])
	}
}

// NATS restarting under an open console needs nobody to act: the panel's
// client re-subscribes and the same stream carries lines again.
func TestConsole_SurvivesNATSRestart(t *testing.T) {
	e := newEnv(t)
	events, status, _ := openStream(t, e.op, e.p.URL+gameURL+"/console/stream")
	if status != http.StatusOK {
		t.Fatalf("stream: %d", status)
	}
	waitFor(t, events, "hello from the game")
	e.p.NATS.Restart()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the stream ended with the NATS restart")
			}
			if ev.name == console.EventLines && strings.Contains(ev.data, "after the restart") {
				return
			}
		case <-deadline:
			t.Fatal("no line on the open stream within 20 s of the NATS restart")
		case <-tick.C:
			m := wire.ConsoleMessage{Timestamp: time.Now(), InstanceID: "game", Lines: []wire.ConsoleLine{{Stream: "stdout", Text: "after the restart"}}}
			_ = e.p.NC.Publish(wire.ConsoleSubject(licA, "game"), m.AppendJSON(nil)) // buffered while reconnecting
		}
	}
}

// TestConsole_TintByLevel: a line is tinted by the level it states,
// whatever stream it came on (worldsrv and ether log INFO to stderr when
// run by hand); a line that states none is tinted by its stream.
func TestConsole_TintByLevel(t *testing.T) {
	e := newEnv(t)
	events, status, _ := openStream(t, e.op, e.p.URL+"/hosts/"+licA+"/instances/ghost/console/stream")
	if status != http.StatusOK {
		t.Fatalf("stream: %d", status)
	}
	poll.True(t, 5*time.Second, "the stream is watching", func() bool { return e.hub().Watchers() == 1 })
	lines := []wire.ConsoleLine{
		{Stream: "stderr", Text: `time=2026-11-27T21:00:00Z level=INFO msg="world ready"`},
		{Stream: "stderr", Text: `time=2026-11-27T21:00:00Z level=WARN msg="sidecar link lost"`},
		{Stream: "stdout", Text: `{"level":"error","msg":"cannot save"}`},
		{Stream: "stderr", Text: `panic: runtime error`},
		{Stream: "stdout", Text: `plain output`},
	}
	m := wire.ConsoleMessage{Timestamp: time.Now(), InstanceID: "ghost", Lines: lines}
	if err := e.p.NC.Publish(wire.ConsoleSubject(licA, "ghost"), m.AppendJSON(nil)); err != nil {
		t.Fatal(err)
	}
	seen := waitFor(t, events, "plain output")
	var tints []string
	for _, ev := range seen {
		if ev.name != console.EventLines {
			continue
		}
		_, s, _ := ev.lines(t)
		tints = append(tints, s...)
	}
	want := []string{"o", "w", "e", "e", "o"}
	if strings.Join(tints, ",") != strings.Join(want, ",") {
		t.Fatalf("tints %q, want %q", tints, want)
	}
}

// TestConsole_SaysUpFrontWhatIsMissing: the RCON tab of an instance
// without RCON, and the console of one the agent only watches, say so
// instead of offering an input that fails after a command.
func TestConsole_SaysUpFrontWhatIsMissing(t *testing.T) {
	e := newEnv(t)
	paneltest.StartAgent(t, e.p.NATSURL, licB, paneltest.AgentInstance{ID: "watched", Unmanaged: true})
	check := func(c *paneltest.Client, path, marker, input string, want bool) {
		t.Helper()
		var body string
		poll.Until(t, 10*time.Second, func() error { // the agent's first heartbeat makes the instance known
			var status int
			if status, body = c.Get(path); status != http.StatusOK {
				return fmt.Errorf("%s: %d", path, status)
			}
			return nil
		})
		if got := strings.Contains(body, marker); got != want {
			t.Errorf("%s: says %q up front: %v, want %v", path, marker, got, want)
		}
		if got := strings.Contains(body, `name="`+input+`"`); got == want {
			t.Errorf("%s: offers the %s input: %v, want %v", path, input, got, !want)
		}
	}
	check(e.op, "/hosts/"+licA+"/instances/idle/rcon", "This instance has no RCON", "command", true)
	check(e.op, gameURL+"/rcon", "This instance has no RCON", "command", false)
	check(e.other, "/hosts/"+licB+"/instances/watched/console", "This instance reads no console input", "line", true)
	check(e.op, gameURL+"/console", "This instance reads no console input", "line", false)
}
