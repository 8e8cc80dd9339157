package fleetui_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/fleetui"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/social"
)

// hubs holds the live state hub of each test's latest panel life (a
// restart or a replica builds a new one).
var hubs struct {
	sync.Mutex
	of map[*testing.T]*fleetui.Live
}

// hubOf returns the test's panel's live state hub.
func hubOf(t *testing.T) *fleetui.Live {
	hubs.Lock()
	defer hubs.Unlock()
	return hubs.of[t]
}

// startPanel runs a test panel with ingest, the live state hub and the
// fleet feature, as corrosion-panel serve wires them.
func startPanel(t *testing.T) *paneltest.Panel {
	t.Helper()
	return paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		paneltest.StartIngest(t, d)
		hub, err := fleetui.NewLive(livestate.Config{Tick: 100 * time.Millisecond}, d.NC, d.Store, d.Logger, nil)
		if err != nil {
			t.Fatal(err)
		}
		d.Go(func(ctx context.Context) { _ = hub.Run(ctx) })
		hubs.Lock()
		if hubs.of == nil {
			hubs.of = map[*testing.T]*fleetui.Live{}
		}
		hubs.of[t] = hub // the latest life's (a replica's too)
		hubs.Unlock()
		worlds := social.NewCollector(d.Logger) // the worlds' client URLs, as the app wires it
		d.Go(func(ctx context.Context) { _ = worlds.Run(ctx, d.NC) })
		return []httpx.Feature{fleetui.New(fleetui.Deps{Store: d.Store, Agents: d.Agents, Live: hub, Worlds: worlds, Logger: d.Logger})}
	}})
}

// sseEvent is one Server-Sent Event as a browser's EventSource sees it.
type sseEvent struct {
	Name string
	Data string
}

// stream is an open live stream read in the background.
type stream struct {
	mu     sync.Mutex
	events []sseEvent    // guarded by mu
	done   chan struct{} // closed when the server ends the stream
}

// openStream opens an SSE stream with c's session; the status is
// returned and, on 200, the events collect in the stream until cleanup.
func openStream(t *testing.T, p *paneltest.Panel, c *paneltest.Client, path string) (int, *stream) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	hc := &http.Client{Jar: c.HTTP().Jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("open %s: %v", path, err)
	}
	s := &stream{done: make(chan struct{})}
	t.Cleanup(func() { cancel(); <-s.done })
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		close(s.done)
		return resp.StatusCode, nil
	}
	go s.read(resp)
	return resp.StatusCode, s
}

func (s *stream) read(resp *http.Response) {
	defer close(s.done)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.Name != "" {
				s.mu.Lock()
				s.events = append(s.events, ev)
				s.mu.Unlock()
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			ev.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if ev.Data != "" {
				ev.Data += "\n"
			}
			ev.Data += strings.TrimPrefix(line, "data: ")
		}
	}
}

// all returns the events received so far.
func (s *stream) all() []sseEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sseEvent(nil), s.events...)
}

// waitFor waits for an event named name whose data contains want.
func (s *stream) waitFor(t *testing.T, name, want string) sseEvent {
	t.Helper()
	var found sseEvent
	poll.Until(t, 20*time.Second, func() error {
		for _, e := range s.all() {
			if e.Name == name && strings.Contains(e.Data, want) {
				found = e
				return nil
			}
		}
		return fmt.Errorf("no event %q with %q among %d events", name, want, len(s.all()))
	})
	return found
}

// gamePID reads a fakegame's -pid-file.
func gamePID(t *testing.T, path string) int {
	t.Helper()
	var pid int
	poll.Until(t, 20*time.Second, func() error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err
	})
	return pid
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	if !exists(pid) {
		return false
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
