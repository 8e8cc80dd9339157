package livestate

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/store"
)

// echoModel renders one fragment per event: its license in its name and
// data, for every view; an Actors and a NonActors variant of a second one.
type echoModel struct{}

func (echoModel) Apply(_ context.Context, ev Event, _ View) []Fragment {
	all := ViewFleet | ViewHost | ViewInstance
	return []Fragment{
		{License: ev.License, Instance: ev.Instance, Views: all, Name: "ev-" + ev.License, HTML: []byte("event of " + ev.License)},
		{License: ev.License, Views: all, Audience: Actors, Name: "power", HTML: []byte("buttons")},
		{License: ev.License, Views: all, Audience: NonActors, Name: "power", HTML: []byte("disabled buttons")},
	}
}

func (echoModel) Tick(context.Context, time.Time, View) []Fragment { return nil }

var (
	admin    = &auth.Principal{UserID: 1, Name: "ada", Role: auth.RoleAdmin}
	operator = &auth.Principal{UserID: 2, Name: "olga", Role: auth.RoleOperator, Licenses: []string{"lic-a"}}
	viewer   = &auth.Principal{UserID: 3, Name: "vera", Role: auth.RoleViewer, Licenses: []string{"lic-a", "lic-b"}}
)

func startHub(t *testing.T, cfg Config) (*Hub, *natstest.Server) {
	t.Helper()
	ns := natstest.Start(t)
	nc := ns.Connect(t)
	h, err := New(cfg, nc, echoModel{}, nil, NewMetrics(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	poll.True(t, 5*time.Second, "hub running", h.running.Load)
	return h, ns
}

type recorded struct {
	mu     sync.Mutex
	events []string // "name: data"
}

func (r *recorded) has(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if strings.Contains(e, s) {
			return true
		}
	}
	return false
}

func (r *recorded) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// serve opens a stream for p over a real HTTP server and records it.
func serve(t *testing.T, h *Hub, p *auth.Principal, sub Subscription, header http.Header) (int, *recorded) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h.Serve(w, r, p, sub); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
		}
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	rec := &recorded{}
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		close(done)
		return resp.StatusCode, rec
	}
	go func() {
		defer close(done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var name string
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok {
				rec.mu.Lock()
				rec.events = append(rec.events, name+": "+v)
				rec.mu.Unlock()
			}
		}
	}()
	poll.True(t, 5*time.Second, "stream registered", func() bool { return h.wanted()&sub.View != 0 })
	return resp.StatusCode, rec
}

func TestHub_StreamsCarryOnlyPermittedLicenses(t *testing.T) {
	h, ns := startHub(t, Config{})
	_, adm := serve(t, h, admin, Subscription{View: ViewFleet}, nil)
	_, op := serve(t, h, operator, Subscription{View: ViewFleet}, nil)
	_, vw := serve(t, h, viewer, Subscription{View: ViewFleet}, nil)
	_, opHost := serve(t, h, operator, Subscription{View: ViewHost, License: "lic-a"}, nil)
	nc := ns.Connect(t)
	for _, l := range []string{"lic-b", "lic-c", "lic-a"} {
		b := &store.Batch{Beacons: []store.Beacon{{License: l, At: time.Now()}}}
		PublishCommitted(nc, nil)(b, time.Now())
	}
	poll.True(t, 10*time.Second, "events arrive", func() bool {
		return adm.has("event of lic-a") && op.has("event of lic-a") && vw.has("event of lic-a") && opHost.has("event of lic-a")
	})
	if !adm.has("event of lic-b") || !adm.has("event of lic-c") || !vw.has("event of lic-b") {
		t.Errorf("a permitted stream lacks an event: admin %v, viewer %v", adm.all(), vw.all())
	}
	for name, r := range map[string]*recorded{"operator fleet": op, "operator host": opHost} {
		if r.has("lic-b") || r.has("lic-c") {
			t.Errorf("%s stream carried another license: %v", name, r.all())
		}
	}
	if !op.has("power: buttons") || op.has("disabled buttons") || !vw.has("power: disabled buttons") || vw.has("power: buttons") {
		t.Errorf("audiences: operator %v, viewer %v", op.all(), vw.all())
	}
}

func TestHub_ServeRefusesAStreamOfAnUngrantedLicense(t *testing.T) {
	h, _ := startHub(t, Config{})
	for _, sub := range []Subscription{{View: ViewHost, License: "lic-b"}, {View: ViewInstance, License: "lic-b", Instance: "w"}} {
		if status, _ := serve(t, h, operator, sub, nil); status != http.StatusForbidden {
			t.Errorf("%+v: status %d, want 403", sub, status)
		}
	}
	if status, _ := serve(t, h, nil, Subscription{View: ViewFleet}, nil); status != http.StatusForbidden {
		t.Errorf("no principal: status %d", status)
	}
}

func TestHub_ReconnectIsToldToRefetch(t *testing.T) {
	h, _ := startHub(t, Config{})
	_, rec := serve(t, h, admin, Subscription{View: ViewFleet}, http.Header{"Last-Event-Id": {"7"}})
	poll.True(t, 5*time.Second, "refetch on reconnect", func() bool { return rec.has("refetch: refetch") })
}

// A stream that cannot keep up loses fragments and is then told to
// refetch, once, ahead of whatever comes next.
func TestHub_FullStreamDropsThenRefetches(t *testing.T) {
	h, err := New(Config{Buffer: 2}, natstest.Start(t).Connect(t), echoModel{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &stream{p: admin, sub: Subscription{View: ViewFleet}, ch: make(chan []byte, 2), dropped: make(chan struct{}, 1)}
	h.register(s)
	for i := range 5 {
		h.fanout([]Fragment{{License: "lic-a", Views: ViewFleet, Name: "f", HTML: []byte{'0' + byte(i)}}})
	}
	rec := httptest.NewRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = h.write(ctx, rec, http.NewResponseController(rec), s) }()
	poll.True(t, 5*time.Second, "refetch written", func() bool { return len(s.ch) == 0 && len(s.dropped) == 0 })
	h.fanout([]Fragment{{License: "lic-a", Views: ViewFleet, Name: "f", HTML: []byte("after")}})
	poll.True(t, 5*time.Second, "next fragment written", func() bool { return len(s.ch) == 0 })
	cancel()
	<-done
	out := rec.Body.String()
	if strings.Count(out, "event: refetch") != 1 || strings.Contains(out, "data: 4") || strings.Contains(out, "data: 3") {
		t.Fatalf("want the dropped fragments replaced by one refetch:\n%s", out)
	}
	if !strings.Contains(out, "data: after") || strings.Index(out, "refetch") > strings.Index(out, "after") {
		t.Fatalf("want the refetch before the next fragment:\n%s", out)
	}
}

// A full NATS → model queue drops the message and every stream refetches.
func TestHub_FullQueueRefetchesEveryStream(t *testing.T) {
	h, err := New(Config{Queue: 1}, natstest.Start(t).Connect(t), echoModel{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &stream{p: operator, sub: Subscription{View: ViewFleet}, ch: make(chan []byte, 4), dropped: make(chan struct{}, 1)}
	h.register(s)
	h.enqueue(nil)
	h.enqueue(nil) // the queue holds one: this one is dropped
	h.tick(context.Background(), time.Now())
	if len(s.ch) != 1 || <-s.ch != nil {
		t.Fatalf("want one refetch marker queued to the stream")
	}
	if h.lost.Load() {
		t.Fatal("lost flag not cleared")
	}
}

func TestEncodeEvent_MultilineData(t *testing.T) {
	got := string(encodeEvent("x", []byte("a\nb\r\nc")))
	if got != "event: x\ndata: a\ndata: b\ndata: c\n\n" {
		t.Fatalf("%q", got)
	}
}

func TestHub_DoRunsOnTheHubsGoroutine(t *testing.T) {
	h, err := New(Config{}, natstest.Start(t).Connect(t), echoModel{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Do(context.Background(), func(Model) {}); err != ErrNotRunning {
		t.Fatalf("Do before Run: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	defer func() { cancel(); <-done }()
	poll.True(t, 5*time.Second, "hub running", h.running.Load)
	var got Model
	if err := h.Do(context.Background(), func(m Model) { got = m }); err != nil || got == nil {
		t.Fatalf("Do: %v, model %v", err, got)
	}
}
