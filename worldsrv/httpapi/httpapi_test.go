package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"image/png"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// world is the tiny stand-in for the engine: a fixed status and probe.
type world struct {
	mu      sync.Mutex
	status  Status
	running bool
	ether   EtherState
}

func (w *world) Status() Status         { w.mu.Lock(); defer w.mu.Unlock(); return w.status }
func (w *world) TickRunning() bool      { w.mu.Lock(); defer w.mu.Unlock(); return w.running }
func (w *world) EtherState() EtherState { w.mu.Lock(); defer w.mu.Unlock(); return w.ether }
func (w *world) set(running bool, e EtherState) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running, w.ether = running, e
}

var (
	_ StatusSource = (*world)(nil)
	_ Probe        = (*world)(nil)
)

// designStatus is DESIGN.md section 6's example, as a Status.
func designStatus() Status {
	return Status{
		Node: 10, World: 1, Seed: 3735552002, Biome: terrain.Arctic, Players: 2000, UptimeS: 312.4, Ether: EtherUp,
		Tick: TickStatus{IntervalMS: 600, Count: 520, Overruns: 0, P50MS: 1.9, P99MS: 4.2, MaxMS: 6.0,
			Phases: map[string]PhaseStatus{"inputs": {P50MS: 0.2, P99MS: 0.5}, "players": {P50MS: 0.8, P99MS: 1.6}}},
	}
}

var (
	mapOnce sync.Once
	theMap  *terrain.Map
)

func testMap() *terrain.Map {
	mapOnce.Do(func() {
		theMap = terrain.Generate(terrain.DefaultSeed(10), terrain.Arctic, terrain.DefaultSize, terrain.DefaultSize)
	})
	return theMap
}

type fixture struct {
	srv   *httptest.Server
	world *world
	reg   *prometheus.Registry
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	w := &world{status: designStatus(), running: true, ether: EtherUp}
	reg := prometheus.NewRegistry()
	s, err := New(Options{Map: testMap(), Status: w, Probe: w, Metrics: reg, Logger: slog.New(slog.NewTextHandler(tWriter{t}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s) // 127.0.0.1
	t.Cleanup(srv.Close)
	return &fixture{srv: srv, world: w, reg: reg}
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// do sends a request and returns the response with its body read.
func (f *fixture) do(t *testing.T, method, path string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestServer_Health(t *testing.T) {
	f := newFixture(t)
	f.world.set(false, EtherDown) // alive even when not ready
	resp, body := f.do(t, http.MethodGet, "/health", nil)
	if resp.StatusCode != http.StatusOK || string(body) != "ok\n" {
		t.Fatalf("GET /health = %d %q", resp.StatusCode, body)
	}
	if resp, body := f.do(t, http.MethodHead, "/health", nil); resp.StatusCode != http.StatusOK || len(body) != 0 {
		t.Fatalf("HEAD /health = %d %q", resp.StatusCode, body)
	}
}

func TestServer_Ready(t *testing.T) {
	tests := []struct {
		name    string
		running bool
		ether   EtherState
		code    int
		want    Readiness
	}{
		{"running, linked", true, EtherUp, 200, Readiness{Ready: true}},
		{"running, ether off", true, EtherOff, 200, Readiness{Ready: true}},
		{"running, link down", true, EtherDown, 503, Readiness{Reason: ReasonEtherDown}},
		{"running, unknown link state", true, "", 503, Readiness{Reason: ReasonEtherDown}},
		{"tick stopped, linked", false, EtherUp, 503, Readiness{Reason: ReasonTickStopped}},
		{"tick stopped, ether off", false, EtherOff, 503, Readiness{Reason: ReasonTickStopped}},
	}
	f := newFixture(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.world.set(tt.running, tt.ether)
			resp, body := f.do(t, http.MethodGet, "/ready", nil)
			var got Readiness
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if resp.StatusCode != tt.code || got != tt.want || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("GET /ready = %d %s (%s), want %d %+v", resp.StatusCode, body, resp.Header.Get("Content-Type"), tt.code, tt.want)
			}
		})
	}
}

// TestServer_Status_ShapeIsDesigns: /status for DESIGN.md's example values
// is DESIGN.md's example JSON, field for field.
func TestServer_Status_ShapeIsDesigns(t *testing.T) {
	f := newFixture(t)
	resp, body := f.do(t, http.MethodGet, "/status", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /status = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	golden, err := os.ReadFile("testdata/status.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	if err := json.Unmarshal(golden, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("/status:\n got %s\nwant %s", body, golden)
	}
}

func TestServer_Status_Unencodable(t *testing.T) {
	f := newFixture(t)
	st := designStatus()
	st.Tick.P99MS = math.NaN()
	f.world.mu.Lock()
	f.world.status = st
	f.world.mu.Unlock()
	resp, body := f.do(t, http.MethodGet, "/status", nil)
	if resp.StatusCode != http.StatusInternalServerError || !json.Valid(body) {
		t.Fatalf("GET /status with a NaN = %d %q, want 500 with a JSON error", resp.StatusCode, body)
	}
}

func TestServer_MapBin(t *testing.T) {
	f := newFixture(t)
	want, _ := testMap().MarshalBinary()
	resp, body := f.do(t, http.MethodGet, "/map.bin", nil)
	if resp.StatusCode != 200 || !bytes.Equal(body, want) {
		t.Fatalf("GET /map.bin = %d, %d bytes; want 200, terrain's %d bytes", resp.StatusCode, len(body), len(want))
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/octet-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	checkCaching(t, f, "/map.bin", resp, len(want))
}

func TestServer_MapPNG(t *testing.T) {
	f := newFixture(t)
	resp, body := f.do(t, http.MethodGet, "/map.png", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("GET /map.png = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("map.png does not decode: %v", err)
	}
	m := testMap()
	if b := img.Bounds(); b.Dx() != m.Width()*terrain.PNGScale || b.Dy() != m.Height()*terrain.PNGScale {
		t.Fatalf("map.png is %v, want %d×%d", b, m.Width()*terrain.PNGScale, m.Height()*terrain.PNGScale)
	}
	var direct bytes.Buffer
	if err := m.WritePNG(&direct); err != nil || !bytes.Equal(direct.Bytes(), body) {
		t.Fatalf("map.png differs from terrain's WritePNG (%v)", err)
	}
	checkCaching(t, f, "/map.png", resp, len(body))
}

// checkCaching: an ETag and Cache-Control on the first answer; the ETag
// back gets 304 with no body; another ETag gets the file; HEAD gets the
// headers and no body.
func checkCaching(t *testing.T, f *fixture, path string, first *http.Response, size int) {
	t.Helper()
	etag := first.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || len(etag) < 10 || first.Header.Get("Cache-Control") != mapCacheControl {
		t.Fatalf("%s: ETag %q, Cache-Control %q", path, etag, first.Header.Get("Cache-Control"))
	}
	resp, body := f.do(t, http.MethodGet, path, map[string]string{"If-None-Match": etag})
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 || resp.Header.Get("ETag") != etag {
		t.Fatalf("%s with its ETag = %d, %d bytes", path, resp.StatusCode, len(body))
	}
	resp, body = f.do(t, http.MethodGet, path, map[string]string{"If-None-Match": `"stale"`})
	if resp.StatusCode != 200 || len(body) != size {
		t.Fatalf("%s with a stale ETag = %d, %d bytes", path, resp.StatusCode, len(body))
	}
	resp, body = f.do(t, http.MethodHead, path, nil)
	if resp.StatusCode != 200 || len(body) != 0 || resp.ContentLength != int64(size) || resp.Header.Get("ETag") != etag {
		t.Fatalf("HEAD %s = %d, %d bytes, length %d", path, resp.StatusCode, len(body), resp.ContentLength)
	}
}

func TestServer_Metrics(t *testing.T) {
	f := newFixture(t)
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "worldsrv_test_ticks_total", Help: "test"})
	f.reg.MustRegister(c)
	c.Add(3)
	resp, body := f.do(t, http.MethodGet, "/metrics", nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "worldsrv_test_ticks_total 3") {
		t.Fatalf("GET /metrics = %d %q", resp.StatusCode, body)
	}
}

func TestServer_Routes(t *testing.T) {
	tests := []struct {
		method, path string
		code         int
	}{
		{http.MethodPost, "/health", 405},
		{http.MethodPost, "/ready", 405},
		{http.MethodDelete, "/status", 405},
		{http.MethodPut, "/map.png", 405},
		{http.MethodPost, "/map.bin", 405},
		{http.MethodPost, "/metrics", 405},
		{http.MethodGet, "/nothing", 404},
		{http.MethodGet, "/map.jpg", 404},
	}
	f := newFixture(t)
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			resp, _ := f.do(t, tt.method, tt.path, nil)
			if resp.StatusCode != tt.code {
				t.Fatalf("%s %s = %d, want %d", tt.method, tt.path, resp.StatusCode, tt.code)
			}
			if tt.code == 405 && !strings.Contains(resp.Header.Get("Allow"), "GET") {
				t.Fatalf("405 without Allow: GET (%q)", resp.Header.Get("Allow"))
			}
		})
	}
}

func TestServer_Handle(t *testing.T) {
	w := &world{running: true, ether: EtherOff}
	s, err := New(Options{Map: testMap(), Status: w, Probe: w, Metrics: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	s.Handle("GET /client", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "client") }))
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/client", nil))
	if rec.Code != 200 || rec.Body.String() != "client" {
		t.Fatalf("added route: %d %q", rec.Code, rec.Body)
	}
}

func TestNew_MissingOptions(t *testing.T) {
	w := &world{}
	full := Options{Map: testMap(), Status: w, Probe: w, Metrics: prometheus.NewRegistry()}
	tests := []struct {
		field string
		drop  func(o *Options)
	}{
		{"Map", func(o *Options) { o.Map = nil }},
		{"Status", func(o *Options) { o.Status = nil }},
		{"Probe", func(o *Options) { o.Probe = nil }},
		{"Metrics", func(o *Options) { o.Metrics = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			o := full
			tt.drop(&o)
			_, err := New(o)
			if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("New without %s: %v", tt.field, err)
			}
		})
	}
}
