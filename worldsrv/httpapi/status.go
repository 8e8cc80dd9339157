package httpapi

import (
	"github.com/corrosion/corrosion/worldsrv/terrain"
)

// EtherState is the sidecar link as /status and /ready see it.
type EtherState string

// The sidecar link states.
const (
	EtherUp   EtherState = "up"   // linked to the sidecar
	EtherDown EtherState = "down" // a sidecar is expected but the link is down
	EtherOff  EtherState = "off"  // --ether off: no sidecar by choice
)

// Status is /status (DESIGN.md section 6): the tick figures cover the last
// 100 ticks, durations in milliseconds.
type Status struct {
	Node    uint8         `json:"node"`
	World   int           `json:"world"`
	Seed    uint64        `json:"seed"`
	Biome   terrain.Biome `json:"biome"` // by name ("arctic")
	Players int           `json:"players"`
	UptimeS float64       `json:"uptime_s"`
	Ether   EtherState    `json:"ether"`
	Tick    TickStatus    `json:"tick"`
	// PublicURL is where players open the browser client (--public-url).
	PublicURL string `json:"public_url,omitempty"`
	// Agent names who runs the world (CORROSION_LICENSE_ID and
	// CORROSION_INSTANCE_ID); nil: not run by an agent.
	Agent *AgentStatus `json:"agent,omitempty"`
}

// AgentStatus is /status's "agent".
type AgentStatus struct {
	License  string `json:"license_id"`
	Instance string `json:"instance_id"`
}

// TickStatus is /status's "tick".
type TickStatus struct {
	IntervalMS float64 `json:"interval_ms"`
	Count      uint64  `json:"count"`    // ticks run since start
	Overruns   uint64  `json:"overruns"` // ticks that took longer than the interval
	P50MS      float64 `json:"p50_ms"`
	P99MS      float64 `json:"p99_ms"`
	MaxMS      float64 `json:"max_ms"`
	// Phases is keyed by phase name (world, inputs, npcs, players, logouts,
	// logins, process_ether_inbound, zones, info, outputs, cleanup).
	Phases map[string]PhaseStatus `json:"phases"`
}

// PhaseStatus is one tick phase's timings.
type PhaseStatus struct {
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
}

// StatusSource gives /status its snapshot. Status is called once per
// request from the HTTP server's goroutines, so it must be safe for
// concurrent use and must not wait for the tick.
type StatusSource interface {
	Status() Status
}

// Probe answers /ready. Both methods are called from HTTP goroutines and
// must not wait for the tick.
type Probe interface {
	// TickRunning reports whether the tick loop is running now.
	TickRunning() bool
	// EtherState is the sidecar link's state.
	EtherState() EtherState
}

// Readiness is /ready's body.
type Readiness struct {
	Ready  bool   `json:"ready"`
	Reason string `json:"reason,omitempty"` // why not, when not ready
}

// The reasons /ready gives.
const (
	ReasonTickStopped = "tick not running"
	ReasonEtherDown   = "ether sidecar not linked"
)

// ready is the readiness rule: the tick runs and, unless the world runs
// without ether, the sidecar is linked.
func ready(p Probe) Readiness {
	switch {
	case !p.TickRunning():
		return Readiness{Reason: ReasonTickStopped}
	case p.EtherState() != EtherOff && p.EtherState() != EtherUp:
		return Readiness{Reason: ReasonEtherDown}
	}
	return Readiness{Ready: true}
}
