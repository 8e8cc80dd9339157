package console_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/rcon/rcontest"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/console"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/server"
)

const (
	licA = "lic-a"
	licB = "lic-b"
)

// env is a real panel with the console feature, the real agent of licA
// running two fake games ("game" with RCON to a test Source server,
// "idle" never started) and operators of each kind.
type env struct {
	p     *paneltest.Panel
	agent *paneltest.Agent
	rcon  *rcontest.SourceServer
	feat  atomic.Pointer[console.Feature]
	op    *paneltest.Client // operator of licA
	other *paneltest.Client // operator of licB only
	view  *paneltest.Client // viewer of licA
	opPW  string            // the operator's password
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{}
	e.p = paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		f := console.New(server.TabDeps{NATS: d.NC, Logger: d.Logger})
		if err := f.RegisterMetrics(d.Registry); err != nil {
			t.Fatal(err)
		}
		e.feat.Store(f)
		return []httpx.Feature{f}
	}})
	e.p.AddLicense(t, licA)
	e.p.AddLicense(t, licB)
	e.rcon = rcontest.NewSource(t, rcontest.SourceOptions{Password: "rcon-pw",
		Handler: func(cmd string) string { return "ran: " + cmd }})
	e.agent = paneltest.StartAgent(t, e.p.NATSURL, licA,
		paneltest.AgentInstance{ID: "game", Autostart: true, Args: []string{"-banner", "hello from the game"},
			RCON: &paneltest.AgentRCON{Kind: "source", Port: e.rcon.Port(), Password: "rcon-pw"}},
		paneltest.AgentInstance{ID: "idle"})
	e.opPW = e.p.AddUser(t, "olga", auth.RoleOperator, licA)
	e.op = e.p.Client(t, "olga", e.opPW)
	e.other = e.p.Client(t, "bert", e.p.AddUser(t, "bert", auth.RoleOperator, licB))
	e.view = e.p.Client(t, "vic", e.p.AddUser(t, "vic", auth.RoleViewer, licA))
	return e
}

func (e *env) hub() *console.Hub { return e.feat.Load().Hub() }

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data string
}

// lines decodes a backlog or lines event.
func (ev sseEvent) lines(t *testing.T) (texts []string, streams []string, dropped int64) {
	t.Helper()
	var d struct {
		Lines   [][2]string `json:"lines"`
		Dropped int64       `json:"dropped"`
	}
	if err := json.Unmarshal([]byte(ev.data), &d); err != nil {
		t.Fatalf("%s event is not JSON: %v: %s", ev.name, err, ev.data)
	}
	for _, l := range d.Lines {
		streams, texts = append(streams, l[0]), append(texts, l[1])
	}
	return texts, streams, d.Dropped
}

// openStream opens a live stream with c and returns its events; cancel
// closes it.
func openStream(t *testing.T, c *paneltest.Client, url string) (events <-chan sseEvent, status int, cancel func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp := c.Do(req)
	ch := make(chan sseEvent, 1024)
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		close(ch)
		return ch, resp.StatusCode, cancel
	}
	go readEvents(resp, ch)
	t.Cleanup(cancel)
	return ch, resp.StatusCode, cancel
}

func readEvents(resp *http.Response, ch chan<- sseEvent) {
	defer resp.Body.Close()
	defer close(ch)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = strings.TrimPrefix(line, "data: ")
		case line == "" && ev.name != "":
			ch <- ev
			ev = sseEvent{}
		}
	}
}

// waitFor reads events until one holds a line containing want, failing
// after the deadline; it returns the events read.
func waitFor(t *testing.T, events <-chan sseEvent, want string) []sseEvent {
	t.Helper()
	var seen []sseEvent
	deadline := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("stream ended before a line with %q; events: %v", want, seen)
			}
			seen = append(seen, ev)
			if ev.name == console.EventBacklog || ev.name == console.EventLines {
				texts, _, _ := ev.lines(t)
				for _, s := range texts {
					if strings.Contains(s, want) {
						return seen
					}
				}
			}
		case <-deadline:
			t.Fatalf("no line with %q within 15 s; events: %v", want, seen)
		}
	}
}

// auditRows returns "action result target" of every audit row of action.
func auditRows(t *testing.T, p *paneltest.Panel, action string) []string {
	t.Helper()
	rows, err := p.Store.Pool().Query(context.Background(),
		`SELECT result || ' ' || user_name || ' ' || target FROM panel_audit WHERE action = $1 ORDER BY id`, action)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
