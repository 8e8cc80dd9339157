package scrape_test

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/corrosion/corrosion/internal/scrape"
)

var defs = []scrape.Def{
	{Name: "t_up", Help: "1 when up."},
	{Name: "t_items", Help: "Items held."},
	{Name: "t_done_total", Help: "Work done, by result.", Labels: []string{"result"}},
}

func collectFixed(e scrape.Emit) {
	e.Flag("t_up", true)
	e.Gauge("t_items", 3.5)
	e.Counter("t_done_total", 7, "ok")
	e.Counter("t_done_total", 2, "failed")
}

// scrapeText serves h on a Listener and returns one scrape.
func scrapeText(t *testing.T, h http.Handler) string {
	t.Helper()
	l, err := scrape.Listen("127.0.0.1:0", h, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	l.Serve()
	defer l.Stop()
	resp, err := http.Get("http://" + l.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCollector_EmitsTheTable(t *testing.T) {
	reg := scrape.Registry(scrape.New(defs, collectFixed))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	got := scrapeText(t, mux)
	for _, want := range []string{
		"# HELP t_up 1 when up.\n# TYPE t_up gauge\nt_up 1\n",
		"# TYPE t_items gauge\nt_items 3.5\n",
		"# TYPE t_done_total counter\n",
		`t_done_total{result="failed"} 2`,
		`t_done_total{result="ok"} 7`,
		"go_goroutines ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("scrape lacks %q:\n%s", want, got)
		}
	}
}

func TestEmit_UnknownMetricPanicsNamingIt(t *testing.T) {
	c := scrape.New(defs, func(e scrape.Emit) { e.Gauge("t_typo", 1) })
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, `"t_typo"`) {
			t.Fatalf("recovered %v, want a panic naming t_typo", r)
		}
	}()
	c.Collect(make(chan prometheus.Metric, 1))
}

func TestListen_BusyAddressFailsAtOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = scrape.Listen(ln.Addr().String(), http.NotFoundHandler(), slog.Default())
	if err == nil || !strings.Contains(err.Error(), "listen tcp "+ln.Addr().String()) {
		t.Fatalf("err = %v, want one naming the address", err)
	}
}

// TestListener_StopFreesTheAddress: after Stop, served or not, the address
// can be listened on again, and a second Stop does nothing.
func TestListener_StopFreesTheAddress(t *testing.T) {
	for _, serve := range []struct {
		name string
		do   func(*scrape.Listener)
	}{{"served", (*scrape.Listener).Serve}, {"never served", func(*scrape.Listener) {}}} {
		t.Run(serve.name, func(t *testing.T) {
			l, err := scrape.Listen("127.0.0.1:0", http.NotFoundHandler(), slog.Default())
			if err != nil {
				t.Fatal(err)
			}
			serve.do(l)
			l.Stop()
			l.Stop()
			again, err := net.Listen("tcp", l.Addr().String())
			if err != nil {
				t.Fatalf("address still held after Stop: %v", err)
			}
			_ = again.Close()
		})
	}
}
