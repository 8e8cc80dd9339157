package reach

import (
	"strings"
	"testing"

	"github.com/corrosion/corrosion/agent/wire"
)

func TestVerdict(t *testing.T) {
	tcpOK := wire.ProbeResult{Check: CheckTCPConnect, OK: true}
	tcpBad := wire.ProbeResult{Check: CheckTCPConnect, Error: "connection refused"}
	a2sOK := wire.ProbeResult{Check: CheckA2SInfo, OK: true, Players: new(3)}
	udp := wire.ProbeResult{Check: CheckNone, Error: NotVerifiable}
	refused := wire.ProbeResult{Check: CheckNone, Error: "refused: 10.0.0.5 is a private address (RFC 1918); the panel probes only public addresses"}
	cases := []struct {
		name string
		rs   []wire.ProbeResult
		want string
	}{
		{"empty", nil, ""},
		{"all answered", []wire.ProbeResult{tcpOK, a2sOK}, VerdictReachable},
		{"unverifiable ports count for nothing", []wire.ProbeResult{udp, tcpOK}, VerdictReachable},
		{"some answered", []wire.ProbeResult{tcpOK, tcpBad}, VerdictPartly},
		{"none answered", []wire.ProbeResult{tcpBad, udp}, VerdictUnreachable},
		{"nothing checkable", []wire.ProbeResult{udp, udp}, VerdictNotVerifiable},
		{"refused address", []wire.ProbeResult{refused, refused}, VerdictNotProbed},
	}
	for _, c := range cases {
		if got := Verdict(wire.ProbeReport{Results: c.rs}); got != c.want {
			t.Errorf("%s: Verdict = %q, want %q", c.name, got, c.want)
		}
	}
	if p := Players(wire.ProbeReport{Results: []wire.ProbeResult{tcpOK, a2sOK}}); p == nil || *p != 3 {
		t.Errorf("Players = %v, want 3", p)
	}
	if p := Players(wire.ProbeReport{Results: []wire.ProbeResult{tcpOK, udp}}); p != nil {
		t.Errorf("Players without an A2S answer = %v", *p)
	}
}

func TestDescribe(t *testing.T) {
	cases := []struct {
		r    wire.ProbeResult
		want string
	}{
		{wire.ProbeResult{Check: CheckTCPConnect, OK: true}, "reachable: accepts TCP connections"},
		{wire.ProbeResult{Check: CheckA2SInfo, OK: true, Server: "Main", Players: new(42), MaxPlayers: new(100)},
			`reachable: Steam query answers as "Main", 42 of 100 players`},
		{wire.ProbeResult{Check: CheckA2SInfo, Error: "a2s_info: timeout after 3s"}, "not reachable: timeout after 3s"},
		{wire.ProbeResult{Check: CheckTCPConnect, Error: "connection refused"}, "not reachable: connection refused"},
		{wire.ProbeResult{Check: CheckNone, Error: NotVerifiable}, "not verifiable from outside"},
		{wire.ProbeResult{Check: CheckNone, Error: "refused: 127.0.0.1 is a loopback address"}, "refused: 127.0.0.1 is a loopback address"},
	}
	for _, c := range cases {
		if got := Describe(c.r); !strings.HasPrefix(got, c.want) {
			t.Errorf("Describe(%+v) = %q, want %q…", c.r, got, c.want)
		}
	}
}

func TestToPorts(t *testing.T) {
	got := ToPorts([]wire.BoundPortInfo{{Name: "query", Protocol: "udp", Port: 1}, {Name: "query", Protocol: "tcp", Port: 2},
		{Name: "game", Protocol: "udp", Port: 3}})
	if !got[0].Query || got[1].Query || got[2].Query {
		t.Fatalf("only a udp port named query is asked A2S: %+v", got)
	}
}
