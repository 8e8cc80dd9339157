package telemetry

import (
	"context"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/netprobe"
)

// DefaultProbeTimeout is the per-target budget when NewProber gets none.
const DefaultProbeTimeout = 3 * time.Second

// Prober measures outbound TCP reachability: a connect to each target, all
// at once, each within its own timeout. It is safe for concurrent use.
type Prober struct {
	targets []config.Probe // immutable after New
	timeout time.Duration  // immutable after New
	dialer  net.Dialer     // immutable after New

	last atomic.Pointer[wire.ProbeReport] // the latest report; never mutated once stored
}

// NewProber returns a Prober for targets; timeout <= 0 means
// DefaultProbeTimeout.
func NewProber(targets []config.Probe, timeout time.Duration) *Prober {
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	return &Prober{targets: append([]config.Probe(nil), targets...), timeout: timeout}
}

// Probe connects to every target concurrently and returns a fresh report,
// which also becomes Last. Results are in target order. latency_ms is the
// time to resolve the name and complete the TCP handshake, in ms (µs
// precision); a failed target has ok false, no latency, and an error:
// "timeout after 3s", "connection refused", "lookup x: no such host", ...
// The report's timestamp is when the probes finished.
func (p *Prober) Probe(ctx context.Context) wire.ProbeReport {
	results := make([]wire.ProbeResult, len(p.targets))
	var wg sync.WaitGroup
	for i, t := range p.targets {
		wg.Go(func() { results[i] = p.probeOne(ctx, t) })
	}
	wg.Wait()
	rep := wire.ProbeReport{Timestamp: time.Now().UTC(), Results: results}
	p.last.Store(&rep)
	return copyReport(&rep)
}

// Last returns a copy of the latest report, or nil before the first Probe.
func (p *Prober) Last() *wire.ProbeReport {
	r := p.last.Load()
	if r == nil {
		return nil
	}
	cp := copyReport(r)
	return &cp
}

func copyReport(r *wire.ProbeReport) wire.ProbeReport {
	cp := wire.ProbeReport{Timestamp: r.Timestamp, Results: make([]wire.ProbeResult, len(r.Results))}
	for i, res := range r.Results {
		if res.LatencyMS != nil {
			res.LatencyMS = new(*res.LatencyMS)
		}
		cp.Results[i] = res
	}
	return cp
}

func (p *Prober) probeOne(ctx context.Context, t config.Probe) wire.ProbeResult {
	res := wire.ProbeResult{Name: t.Name, Host: t.Host, Port: t.Port}
	res.LatencyMS, res.Error = netprobe.TCP(ctx, &p.dialer, net.JoinHostPort(t.Host, strconv.Itoa(t.Port)), p.timeout)
	res.OK = res.Error == ""
	return res
}
