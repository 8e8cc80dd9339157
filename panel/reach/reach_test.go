package reach_test

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/a2s"
	"github.com/corrosion/corrosion/internal/a2s/a2stest"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/reach"
)

// newProber is a Prober for loopback tests (AllowPrivate: the dev option).
func newProber(t *testing.T, opts reach.Options) *reach.Prober {
	t.Helper()
	opts.AllowPrivate = true
	p, err := reach.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tcpListener is an open TCP port on loopback that accepts and closes.
func tcpListener(t *testing.T) *net.TCPListener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	return ln.(*net.TCPListener)
}

// closedTCPPort is a loopback TCP port nothing listens on.
func closedTCPPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port
}

// closedUDPPort is a loopback UDP port nothing listens on: a query port
// that was closed.
func closedUDPPort(t *testing.T) int {
	t.Helper()
	srv := a2stest.New(t, a2stest.Options{})
	srv.Close()
	return srv.Port()
}

var info = a2s.Info{Protocol: 17, Name: "Main 2x Vanilla", Map: "Procedural Map", Folder: "rust", Game: "Rust",
	Players: 42, MaxPlayers: 100, ServerType: 'd', Environment: 'l', Version: "2590"}

func TestProbeLoopback(t *testing.T) {
	open := tcpListener(t)
	plain := a2stest.New(t, a2stest.Options{Info: info})
	challenged := a2stest.New(t, a2stest.Options{Info: info, Challenge: true})
	malformed := a2stest.New(t, a2stest.Options{Raw: []byte{0xff, 0xff, 0xff, 0xff, 0x49, 17, 'x'}})
	silent := a2stest.New(t, a2stest.Options{Silent: true})
	p := newProber(t, reach.Options{Timeout: 500 * time.Millisecond})
	req := reach.Request{InstanceID: "rust1", Address: "127.0.0.1", Ports: []reach.Port{
		{Name: "rcon", Protocol: reach.TCP, Port: open.Addr().(*net.TCPAddr).Port},
		{Name: "closed", Protocol: reach.TCP, Port: closedTCPPort(t)},
		{Name: "query", Protocol: reach.UDP, Port: plain.Port(), Query: true},
		{Name: "query-challenged", Protocol: reach.UDP, Port: challenged.Port(), Query: true},
		{Name: "query-malformed", Protocol: reach.UDP, Port: malformed.Port(), Query: true},
		{Name: "query-silent", Protocol: reach.UDP, Port: silent.Port(), Query: true},
		{Name: "query-closed", Protocol: reach.UDP, Port: closedUDPPort(t), Query: true},
		{Name: "game", Protocol: reach.UDP, Port: 28015},
	}}
	start := time.Now()
	rep, err := p.Probe(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("8 ports in %v", time.Since(start))
	if rep.Direction != wire.DirectionInbound || rep.Timestamp.IsZero() || len(rep.Results) != len(req.Ports) {
		t.Fatalf("report %+v", rep)
	}
	want := []struct {
		ok           bool
		check, error string
		players      bool
	}{
		{true, reach.CheckTCPConnect, "", false},
		{false, reach.CheckTCPConnect, "connection refused", false},
		{true, reach.CheckA2SInfo, "", true},
		{true, reach.CheckA2SInfo, "", true},
		{false, reach.CheckA2SInfo, "a2s_info: a2s: malformed reply: name at byte 6 has no terminating NUL", false},
		{false, reach.CheckA2SInfo, "a2s_info: timeout after 500ms", false},
		{false, reach.CheckA2SInfo, "a2s_info: connection refused", false},
		{false, reach.CheckNone, reach.NotVerifiable, false},
	}
	for i, w := range want {
		r := rep.Results[i]
		if r.Name != req.Ports[i].Name || r.Host != "127.0.0.1" || r.Port != req.Ports[i].Port || r.Protocol != req.Ports[i].Protocol {
			t.Errorf("result %d names %s %s:%d/%s", i, r.Name, r.Host, r.Port, r.Protocol)
		}
		if r.OK != w.ok || r.Check != w.check || !strings.Contains(r.Error, w.error) || (w.error == "") != (r.Error == "") {
			t.Errorf("%s: ok %v check %q error %q; want ok %v check %q error containing %q", r.Name, r.OK, r.Check, r.Error, w.ok, w.check, w.error)
		}
		if r.OK != (r.LatencyMS != nil) {
			t.Errorf("%s: ok %v with latency %v", r.Name, r.OK, r.LatencyMS)
		}
		if w.players && (r.Players == nil || *r.Players != 42 || r.MaxPlayers == nil || *r.MaxPlayers != 100 || r.Server != info.Name) {
			t.Errorf("%s: players %v/%v server %q, want 42/100 %q", r.Name, r.Players, r.MaxPlayers, r.Server, info.Name)
		}
	}
}

func TestProbeRefusesPrivateAddresses(t *testing.T) {
	ln := tcpListener(t)
	port := ln.Addr().(*net.TCPAddr).Port
	p, err := reach.New(reach.Options{}) // production: no dev option
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ address, want string }{
		{"127.0.0.1", "refused: 127.0.0.1 is a loopback address; the panel probes only public addresses"},
		{"localhost", "refused: localhost resolves to "},
		{"10.1.2.3", "refused: 10.1.2.3 is a private address (RFC 1918)"},
		{"::ffff:127.0.0.1", "refused: 127.0.0.1 is a loopback address"},
		{"203.0.113.5:28015", `not probed: address "203.0.113.5:28015" has a port`},
	}
	for i, c := range cases {
		rep, err := p.Probe(t.Context(), reach.Request{InstanceID: "i" + string(rune('a'+i)), Address: c.address,
			Ports: []reach.Port{{Name: "game", Protocol: reach.TCP, Port: port}, {Name: "query", Protocol: reach.UDP, Port: port, Query: true}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			if r.OK || r.Check != reach.CheckNone || !strings.HasPrefix(r.Error, c.want) || r.Host != c.address {
				t.Errorf("%s: %+v, want not ok, check none, error %q", c.address, r, c.want)
			}
		}
	}
	// Nothing connected to the listener.
	_ = ln.SetDeadline(time.Now().Add(200 * time.Millisecond))
	if c, err := ln.Accept(); err == nil {
		_ = c.Close()
		t.Fatal("a refused address was connected to")
	}
}

func TestProbeOwnAddressRefused(t *testing.T) {
	p, err := reach.New(reach.Options{OwnAddrs: []netip.Addr{netip.MustParseAddr("198.51.100.1")}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := p.Probe(t.Context(), reach.Request{InstanceID: "x", Address: "198.51.100.1",
		Ports: []reach.Port{{Name: "game", Protocol: reach.TCP, Port: 28015}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "refused: 198.51.100.1 is one of the panel's own addresses"; !strings.HasPrefix(rep.Results[0].Error, want) {
		t.Fatalf("error %q, want %q", rep.Results[0].Error, want)
	}
}

func TestProbeInvalid(t *testing.T) {
	p := newProber(t, reach.Options{})
	tcp := reach.Port{Name: "game", Protocol: reach.TCP, Port: 1}
	many := make([]reach.Port, reach.MaxPorts+1)
	for i := range many {
		many[i] = tcp
	}
	cases := []struct {
		req  reach.Request
		want string
	}{
		{reach.Request{Address: "1.2.3.4", Ports: []reach.Port{tcp}}, "no instance"},
		{reach.Request{InstanceID: "a", Ports: []reach.Port{tcp}}, "no public address"},
		{reach.Request{InstanceID: "a", Address: "1.2.3.4"}, "declares no ports"},
		{reach.Request{InstanceID: "a", Address: "1.2.3.4", Ports: many}, "33 ports, at most 32"},
		{reach.Request{InstanceID: "a", Address: "1.2.3.4", Ports: []reach.Port{{Name: "x", Protocol: "sctp", Port: 1}}}, `protocol "sctp"`},
		{reach.Request{InstanceID: "a", Address: "1.2.3.4", Ports: []reach.Port{{Name: "x", Protocol: "tcp", Port: 0}}}, "0 outside 1-65535"},
		{reach.Request{InstanceID: "a", Address: "1.2.3.4", Ports: []reach.Port{{Name: "x", Protocol: "tcp", Port: 70000}}}, "70000 outside"},
		{reach.Request{InstanceID: "a", Address: "1.2.3.4", Ports: []reach.Port{{Name: "x", Protocol: "tcp", Port: 1, Query: true}}}, "udp only"},
	}
	for _, c := range cases {
		if _, err := p.Probe(t.Context(), c.req); !errors.Is(err, reach.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want ErrInvalid with %q", c.req, err, c.want)
		}
	}
	if _, err := reach.New(reach.Options{Timeout: 4 * time.Second}); err == nil {
		t.Fatal("a 4s timeout was accepted")
	}
}

func TestProbeBusyAndRateLimited(t *testing.T) {
	slow := a2stest.New(t, a2stest.Options{Info: info, Delay: 300 * time.Millisecond})
	p := newProber(t, reach.Options{MinInterval: time.Hour})
	req := reach.Request{InstanceID: "rust1", Address: "127.0.0.1",
		Ports: []reach.Port{{Name: "query", Protocol: reach.UDP, Port: slow.Port(), Query: true}}}
	var wg sync.WaitGroup
	var first wire.ProbeReport
	var firstErr error
	wg.Go(func() { first, firstErr = p.Probe(t.Context(), req) })
	poll.True(t, 3*time.Second, "the first probe reaches the server", func() bool { return slow.Requests() > 0 })
	if _, err := p.Probe(t.Context(), req); !errors.Is(err, reach.ErrBusy) {
		t.Fatalf("second probe while the first runs: %v, want ErrBusy", err)
	}
	wg.Wait()
	if firstErr != nil || !first.Results[0].OK {
		t.Fatalf("first probe: %+v, %v", first, firstErr)
	}
	if _, err := p.Probe(t.Context(), req); !errors.Is(err, reach.ErrRateLimited) || !strings.Contains(err.Error(), "retry in") {
		t.Fatalf("probe right after: %v, want ErrRateLimited", err)
	}
	other := req
	other.InstanceID = "rust2"
	if _, err := p.Probe(t.Context(), other); err != nil {
		t.Fatalf("another instance is not limited: %v", err)
	}
}

func TestProbeRateLimitExpires(t *testing.T) {
	ln := tcpListener(t)
	p := newProber(t, reach.Options{MinInterval: 100 * time.Millisecond})
	req := reach.Request{InstanceID: "w", Address: "127.0.0.1",
		Ports: []reach.Port{{Name: "game", Protocol: reach.TCP, Port: ln.Addr().(*net.TCPAddr).Port}}}
	if _, err := p.Probe(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 3*time.Second, func() error { _, err := p.Probe(t.Context(), req); return err })
}

// TestProbeParallelBounded: ports are probed at once, and no more than
// Parallel at a time.
func TestProbeParallelBounded(t *testing.T) {
	const timeout = 300 * time.Millisecond
	ports := make([]reach.Port, 8)
	for i := range ports {
		ports[i] = reach.Port{Name: "q", Protocol: reach.UDP, Port: a2stest.New(t, a2stest.Options{Silent: true}).Port(), Query: true}
	}
	for _, c := range []struct {
		parallel int
		min, max time.Duration
	}{
		{16, timeout, 3 * timeout},        // all 8 at once
		{2, 4 * timeout, 100 * time.Hour}, // 4 rounds of 2
	} {
		p := newProber(t, reach.Options{Timeout: timeout, Parallel: c.parallel})
		start := time.Now()
		rep, err := p.Probe(t.Context(), reach.Request{InstanceID: "p", Address: "127.0.0.1", Ports: ports})
		d := time.Since(start)
		if err != nil || len(rep.Results) != len(ports) {
			t.Fatal(rep, err)
		}
		t.Logf("parallel %d: 8 silent ports in %v", c.parallel, d)
		if d < c.min || d > c.max {
			t.Errorf("parallel %d: 8 silent ports of %v took %v, want [%v, %v]", c.parallel, timeout, d, c.min, c.max)
		}
	}
}
