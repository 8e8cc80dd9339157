package world

import (
	"time"

	"github.com/corrosion/corrosion/worldsrv/httpapi"
)

// probe is the World as httpapi's StatusSource and Probe: it reads only
// snapshots (engine.Stats, the link's Up), never waits for the tick.
type probe World

var (
	_ httpapi.StatusSource = (*probe)(nil)
	_ httpapi.Probe        = (*probe)(nil)
)

// TickRunning reports whether the engine's Run is ticking.
func (p *probe) TickRunning() bool { return p.running.Load() }

// EtherState is off (--ether off), up or down.
func (p *probe) EtherState() httpapi.EtherState {
	switch {
	case p.link == nil:
		return httpapi.EtherOff
	case p.link.Up():
		return httpapi.EtherUp
	}
	return httpapi.EtherDown
}

// Status is /status.
func (p *probe) Status() httpapi.Status {
	st := p.engine.Stats()
	tick := httpapi.TickStatus{
		IntervalMS: ms(tickInterval), Count: st.Ticks, Overruns: st.Overruns,
		P50MS: ms(st.Tick.P50), P99MS: ms(st.Tick.P99), MaxMS: ms(st.Tick.Max),
		Phases: make(map[string]httpapi.PhaseStatus, len(st.Phases)),
	}
	for _, ph := range st.Phases {
		tick.Phases[ph.Name] = httpapi.PhaseStatus{P50MS: ms(ph.P50), P99MS: ms(ph.P99)}
	}
	s := httpapi.Status{Node: p.cfg.NodeID, World: p.cfg.World(), Seed: p.cfg.Seed, Biome: p.cfg.Biome,
		Players: st.Players, UptimeS: time.Since(p.started).Seconds(), Ether: p.EtherState(), Tick: tick,
		PublicURL: p.cfg.PublicURL}
	if p.cfg.LicenseID != "" {
		s.Agent = &httpapi.AgentStatus{License: p.cfg.LicenseID, Instance: p.cfg.InstanceID}
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
