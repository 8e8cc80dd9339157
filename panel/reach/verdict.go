package reach

import (
	"strconv"
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
)

// Verdicts of a report (Verdict), in words a table cell can hold.
const (
	VerdictReachable     = "reachable"        // every checked port answered
	VerdictPartly        = "partly reachable" // some did
	VerdictUnreachable   = "unreachable"      // none did
	VerdictNotVerifiable = "not verifiable"   // no port could be checked (udp without a query protocol)
	VerdictNotProbed     = "not probed"       // the address was refused or did not resolve
)

// Verdict sums a report up in one word of the Verdict constants: the
// Servers page's badge. Ports without a check (udp, no query protocol)
// count for nothing either way; "" for an empty report.
func Verdict(rep wire.ProbeReport) string {
	if len(rep.Results) == 0 {
		return ""
	}
	var checked, ok int
	for _, r := range rep.Results {
		if r.Check == CheckNone {
			if r.Error != NotVerifiable {
				return VerdictNotProbed // refused, unresolved or canceled: the same for every port
			}
			continue
		}
		checked++
		if r.OK {
			ok++
		}
	}
	switch {
	case checked == 0:
		return VerdictNotVerifiable
	case ok == checked:
		return VerdictReachable
	case ok > 0:
		return VerdictPartly
	}
	return VerdictUnreachable
}

// Players is the player count of the report's first A2S answer, or nil.
func Players(rep wire.ProbeReport) *int {
	for _, r := range rep.Results {
		if r.OK && r.Check == CheckA2SInfo && r.Players != nil {
			return new(*r.Players)
		}
	}
	return nil
}

// Describe is one result in words for the instance page: what was tried
// and what it showed ("accepts TCP connections", "Steam server "Main"
// answers: 42 of 100 players", "connection refused").
func Describe(r wire.ProbeResult) string {
	switch {
	case r.OK && r.Check == CheckTCPConnect:
		return "reachable: accepts TCP connections"
	case r.OK && r.Check == CheckA2SInfo:
		var b strings.Builder
		b.WriteString("reachable: Steam query answers")
		if r.Server != "" {
			b.WriteString(" as " + strconv.Quote(r.Server))
		}
		if r.Players != nil && r.MaxPlayers != nil {
			b.WriteString(", " + strconv.Itoa(*r.Players) + " of " + strconv.Itoa(*r.MaxPlayers) + " players")
		}
		return b.String()
	case r.Check == CheckNone && r.Error == NotVerifiable:
		return "not verifiable from outside: a UDP port without a query protocol need not answer"
	case r.Check == CheckNone:
		return r.Error
	}
	return "not reachable: " + strings.TrimPrefix(r.Error, CheckA2SInfo+": ")
}

// ToPorts is an instance's declared ports as a probe request names them
// (a udp port named wire.QueryPortName is asked A2S_INFO).
func ToPorts(ports []wire.BoundPortInfo) []Port {
	out := make([]Port, len(ports))
	for i, p := range ports {
		out[i] = Port{Name: p.Name, Protocol: p.Protocol, Port: p.Port, Query: p.Query()}
	}
	return out
}
