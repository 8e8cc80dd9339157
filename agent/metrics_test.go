//go:build unix

package agent_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/corrosion/corrosion/agent/rcon/rcontest"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natstest"
	"github.com/corrosion/corrosion/internal/poll"
)

// metricsInstances: game (managed, with Source RCON), crasher (exits 9
// after 100 ms, restarted on crash until the harness's crash-loop limit of
// 4) and tele (unmanaged).
func metricsInstances(rconPort int) string {
	return rconInstance("game", "conan", "", rconPort, rconPassword) + `
[[instance]]
id = "crasher"
game = "generic"
root = "{{root}}"
exec = "{{game}}"
args = ["-run-for", "100ms", "-exit-code", "9"]
restart = "on-crash"

[[instance]]
id = "tele"
game = "generic"
root = "{{root}}"
`
}

// TestAgent_Metrics scrapes /metrics of the real binary while it is driven
// over NATS, and checks each kind of metric moves as it should.
func TestAgent_Metrics(t *testing.T) {
	srv := rcontest.NewSource(t, rcontest.SourceOptions{Password: rconPassword,
		Handler: func(cmd string) string { return "ran " + cmd }})
	addr := fmt.Sprintf("127.0.0.1:%d", natstest.FreePort(t))
	h := prepareHarness(t, 60, metricsInstances(srv.Port()), fmt.Sprintf("metrics_listen = %q", addr))
	h.startAgent()
	m := &scraper{t: t, url: "http://" + addr + "/metrics"}

	m.waitValue("corrosion_agent_nats_connected", nil, 1)
	m.waitAtLeast("corrosion_agent_heartbeats_total", labels{"result": "sent"}, 1) // one at connect
	m.wantValue("corrosion_agent_heartbeats_total", labels{"result": "failed"}, 0)
	m.wantValue("corrosion_agent_nats_reconnects_total", nil, 0)
	m.wantState("game", "stopped")
	m.wantState("tele", "configured")
	m.wantValue("corrosion_agent_build_info", nil, 1)
	if mf := m.scrape()["go_goroutines"]; mf == nil {
		t.Error("the Go collector's metrics are missing")
	}

	h.mustOK(h.cmd("game", `{"func":"start","wait":true}`))
	m.wantState("game", "running")
	m.waitAtLeast("corrosion_agent_instance_console_lines_total", labels{"instance": "game"}, 2) // banner, agent line

	requestsCounted(t, h, m)

	h.mustOK(h.cmd("game", `{"func":"stop","wait":true}`))
	m.wantState("game", "stopped")

	h.mustOK(h.cmd("crasher", `{"func":"start"}`))
	m.waitValue("corrosion_agent_instance_crash_loop_stops_total", labels{"instance": "crasher"}, 1)
	m.wantValue("corrosion_agent_instance_restarts_total", labels{"instance": "crasher"}, 3)
	m.wantState("crasher", "crashed")
	m.wantValue("corrosion_agent_instance_restarts_total", labels{"instance": "game"}, 0)

	h.stopAgent(syscall.SIGTERM)
	if _, err := http.Get(m.url); err == nil {
		t.Error("/metrics still answers after the agent stopped")
	}
}

// requestsCounted sends rcon and files requests that succeed and fail, and
// checks each is counted by kind, instance, func and result, and timed.
func requestsCounted(t *testing.T, h *harness, m *scraper) {
	t.Helper()
	h.mustOK(h.cmd("game", `{"func":"rcon","command":"status"}`))
	h.mustErr(h.cmd("game", `{"func":"rcon"}`), wire.CodeBadArgs)
	h.mustErr(h.cmd("crasher", `{"func":"rcon","command":"x"}`), "rcon_not_configured")
	files := func(body string) map[string]any { return h.call(wire.FilesCmdSubject(license, "game"), body) }
	h.mustOK(files(`{"func":"fm_save","path":"a.txt","content":"x"}`))
	h.mustOK(files(`{"func":"fm_read","path":"a.txt"}`))
	h.mustErr(files(`{"func":"fm_read","path":"missing.txt"}`), "not_found")
	mfs := m.scrape()
	for _, c := range []struct {
		l labels
		n float64
	}{
		{labels{"kind": "rcon", "instance": "game", "func": "rcon", "result": "success"}, 1},
		{labels{"kind": "rcon", "instance": "game", "func": "rcon", "result": "bad_args"}, 1},
		{labels{"kind": "rcon", "instance": "crasher", "func": "rcon", "result": "rcon_not_configured"}, 1},
		{labels{"kind": "files", "instance": "game", "func": "fm_save", "result": "success"}, 1},
		{labels{"kind": "files", "instance": "game", "func": "fm_read", "result": "success"}, 1},
		{labels{"kind": "files", "instance": "game", "func": "fm_read", "result": "not_found"}, 1},
	} {
		m.wantIn(mfs, "corrosion_agent_requests_total", c.l, c.n)
	}
	m.wantIn(mfs, "corrosion_agent_request_duration_seconds", labels{"kind": "rcon", "func": "rcon"}, 3)
	m.wantIn(mfs, "corrosion_agent_request_duration_seconds", labels{"kind": "files", "func": "fm_read"}, 2)
}

// TestAgent_Metrics_NATSReconnect: the connected gauge drops while the
// NATS server is down, heartbeats due then count as failed, and the
// reconnect is counted.
func TestAgent_Metrics_NATSReconnect(t *testing.T) {
	addr := fmt.Sprintf("127.0.0.1:%d", natstest.FreePort(t))
	h := prepareHarness(t, 1, "", fmt.Sprintf("metrics_listen = %q", addr))
	h.startAgent()
	m := &scraper{t: t, url: "http://" + addr + "/metrics"}
	m.waitValue("corrosion_agent_nats_connected", nil, 1)

	h.ns.Shutdown()
	m.waitValue("corrosion_agent_nats_connected", nil, 0)
	m.waitAtLeast("corrosion_agent_heartbeats_total", labels{"result": "failed"}, 1)
	h.ns.Restart()
	h.waitReady()
	m.waitValue("corrosion_agent_nats_connected", nil, 1)
	m.wantValue("corrosion_agent_nats_reconnects_total", nil, 1)
}

// TestAgent_Metrics_ListenFailsStartup: an address the agent cannot listen
// on stops it at start with an error naming the setting.
func TestAgent_Metrics_ListenFailsStartup(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	h := prepareHarness(t, 60, "", fmt.Sprintf("metrics_listen = %q", taken.Addr().String()))
	h.launch()
	done := make(chan error, 1)
	go func() { done <- h.agent.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("agent exited with %v, want exit code 1", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the agent did not stop on a metrics address in use")
	}
	h.agent = nil
	out := h.agentOut.String()
	if !strings.Contains(out, "agent.metrics_listen") || !strings.Contains(out, "address already in use") {
		t.Fatalf("the error does not name the setting and the cause:\n%s", out)
	}
}

// labels selects series by some of their labels.
type labels map[string]string

func (l labels) match(m *dto.Metric) bool {
	n := 0
	for _, lp := range m.GetLabel() {
		if v, ok := l[lp.GetName()]; ok {
			if v != lp.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(l)
}

// scraper reads the agent's /metrics over HTTP and parses it with expfmt.
type scraper struct {
	t   *testing.T
	url string
}

func (s *scraper) get() (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(s.url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", s.url, resp.Status)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	return p.TextToMetricFamilies(resp.Body)
}

func (s *scraper) scrape() map[string]*dto.MetricFamily {
	s.t.Helper()
	mfs, err := s.get()
	if err != nil {
		s.t.Fatal(err)
	}
	return mfs
}

// value is the value of the one series of name matching l: a counter's or
// gauge's value, a histogram's sample count.
func value(mfs map[string]*dto.MetricFamily, name string, l labels) (float64, error) {
	mf := mfs[name]
	if mf == nil {
		return 0, fmt.Errorf("no metric %s", name)
	}
	var found []*dto.Metric
	for _, m := range mf.GetMetric() {
		if l.match(m) {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("%d series of %s match %v", len(found), name, l)
	}
	m := found[0]
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue(), nil
	case m.Gauge != nil:
		return m.Gauge.GetValue(), nil
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount()), nil
	}
	return 0, fmt.Errorf("%s %v: unexpected type %v", name, l, mf.GetType())
}

func (s *scraper) wantIn(mfs map[string]*dto.MetricFamily, name string, l labels, want float64) {
	s.t.Helper()
	if v, err := value(mfs, name, l); err != nil || v != want {
		s.t.Errorf("%s%v = %v (%v), want %v", name, l, v, err, want)
	}
}

func (s *scraper) wantValue(name string, l labels, want float64) {
	s.t.Helper()
	s.wantIn(s.scrape(), name, l, want)
}

// waitUntil polls /metrics until cond holds for the series' value.
func (s *scraper) waitUntil(name string, l labels, what string, cond func(float64) bool) {
	s.t.Helper()
	poll.Until(s.t, 15*time.Second, func() error {
		mfs, err := s.get()
		if err != nil {
			return err
		}
		v, err := value(mfs, name, l)
		if err != nil {
			return err
		}
		if !cond(v) {
			return fmt.Errorf("%s%v = %v, want %s", name, l, v, what)
		}
		return nil
	})
}

func (s *scraper) waitValue(name string, l labels, want float64) {
	s.t.Helper()
	s.waitUntil(name, l, fmt.Sprint(want), func(v float64) bool { return v == want })
}

func (s *scraper) waitAtLeast(name string, l labels, min float64) {
	s.t.Helper()
	s.waitUntil(name, l, fmt.Sprint("at least ", min), func(v float64) bool { return v >= min })
}

// wantState waits until the instance's state set has 1 for state and 0
// for each other state.
func (s *scraper) wantState(id, state string) {
	s.t.Helper()
	poll.Until(s.t, 15*time.Second, func() error {
		mfs, err := s.get()
		if err != nil {
			return err
		}
		var on []string
		for _, m := range mfs["corrosion_agent_instance_state"].GetMetric() {
			if labels(map[string]string{"instance": id}).match(m) && m.GetGauge().GetValue() == 1 {
				for _, lp := range m.GetLabel() {
					if lp.GetName() == "state" {
						on = append(on, lp.GetValue())
					}
				}
			}
		}
		sort.Strings(on)
		if len(on) != 1 || on[0] != state {
			return fmt.Errorf("%s: states set to 1: %v, want only %s", id, on, state)
		}
		return nil
	})
}
