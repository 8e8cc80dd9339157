package ui

import (
	"time"

	"github.com/a-h/templ"
)

// ReachCard is an instance's inbound reachability card (docs/probe.md):
// what the panel may probe, the last probe's result per port in words,
// and the button that probes again.
type ReachCard struct {
	License  string
	Instance string
	// CanAct: the button works; ViewerWhy says why it does not.
	CanAct    bool
	ViewerWhy string
	// Address is the host's reported public address ("" none); Ports the
	// instance's declared ports ("query udp 28017", …).
	Address string
	Ports   []string
	// Missing says why nothing can be probed ("" when something can).
	Missing string
	// The last probe; zero At: never probed.
	At      time.Time
	Verdict string // reach.Verdict
	Rows    []ReachRow
	// Report is the last probe as the protocol's ProbeReport (JSON).
	Report string
}

// ReachRow is one probed port.
type ReachRow struct {
	Name    string
	Target  string // host:port/protocol as probed
	Check   string // tcp_connect, a2s_info, none
	OK      bool
	Words   string // the result in words (reach.Describe)
	Latency string // "23.4 ms" or "—"
}

// ReachURL is the instance's reachability card (GET) and probe (POST).
func ReachURL(license, instance string) string { return InstanceURL(license, instance) + "/reach" }

// verdictBadge is a verdict's badge attributes (a plain class attribute,
// as badgeClass: a Servers row renders one): the state colours' meaning
// (UX.md), green answered, amber partly, red not, grey unknown.
func verdictBadge(v string) templ.Attributes {
	class := "badge st-stopped"
	switch v {
	case "reachable":
		class = "badge st-running"
	case "partly reachable":
		class = "badge st-starting"
	case "unreachable":
		class = "badge st-crashed"
	}
	return templ.Attributes{"class": class, "data-verdict": v}
}
