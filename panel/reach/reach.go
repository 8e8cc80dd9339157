// Package reach is the panel's inbound reachability probe: from outside,
// it connects to the public address a host reports, on the ports one
// instance declares — a TCP connect, Valve's A2S_INFO on a Steam game's
// query port — and answers in the protocol's ProbeReport with direction
// "inbound" (docs/probe.md). Nothing else is ever probed: no other port,
// no other address, and no private, loopback or own address unless the
// panel runs with AllowPrivate (dev).
package reach

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/a2s"
	"github.com/corrosion/corrosion/internal/netprobe"
)

// Limits and defaults.
const (
	// MaxTimeout bounds the per-port budget (and the name lookup).
	MaxTimeout = 3 * time.Second
	// DefaultMinInterval is how soon one instance may be probed again.
	DefaultMinInterval = 10 * time.Second
	// DefaultParallel is how many ports are probed at once, across every
	// running probe.
	DefaultParallel = 16
	// MaxPorts is the most ports one request may name.
	MaxPorts = 32
)

// Protocols of a Port (the wire's).
const (
	TCP = wire.PortTCP
	UDP = wire.PortUDP
)

// Checks of a ProbeResult (wire.ProbeResult.Check).
const (
	CheckTCPConnect = "tcp_connect"
	CheckA2SInfo    = "a2s_info"
	CheckNone       = "none"
)

// NotVerifiable is the error of a UDP port without a query protocol: a UDP
// service need not answer a stranger, so silence proves nothing either way.
const NotVerifiable = "udp: not verifiable from outside (no query protocol on this port)"

// Errors of Probe; a probe that ran returns a report instead, whose results
// say what failed.
var (
	// ErrBusy: a probe of the instance is running.
	ErrBusy = errors.New("busy: a probe of this instance is running")
	// ErrRateLimited: the instance was probed less than MinInterval ago.
	ErrRateLimited = errors.New("rate limited")
	// ErrInvalid: the request itself is wrong (no address, a bad port).
	ErrInvalid = errors.New("invalid probe request")
)

// Port is one port an instance declares.
type Port struct {
	Name     string
	Protocol string // TCP or UDP
	Port     int
	// Query: the port answers A2S_INFO (a Steam game's query port).
	Query bool
}

// Request is one probe: the instance, the address its host reports (an IP
// or a DNS name, without a port), and the instance's declared ports.
type Request struct {
	InstanceID string
	Address    string
	Ports      []Port
}

// Options configures a Prober. The zero value is production's.
type Options struct {
	// AllowPrivate lets the probe connect to the addresses Refusal names
	// (dev and tests: a fleet on one machine or a LAN).
	AllowPrivate bool
	// Timeout is the per-port budget, at most MaxTimeout; 0 is MaxTimeout.
	Timeout time.Duration
	// MinInterval is how soon one instance may be probed again; 0 is
	// DefaultMinInterval.
	MinInterval time.Duration
	// Parallel is how many ports are probed at once; 0 is DefaultParallel.
	Parallel int
	// OwnAddrs are the panel's addresses; nil reads the machine's
	// interfaces.
	OwnAddrs []netip.Addr
	// Resolver resolves DNS names; nil is net.DefaultResolver.
	Resolver *net.Resolver
	// Logger gets one line per probe; nil discards.
	Logger *slog.Logger
}

// Prober runs inbound probes, one per instance at a time. It is safe for
// concurrent use.
type Prober struct {
	opts   Options       // immutable after New, its defaults filled in
	sem    chan struct{} // immutable after New; a token per port being probed
	dialer net.Dialer    // immutable after New

	mu      sync.Mutex           // guards running and lastRun
	running map[string]bool      // instances being probed
	lastRun map[string]time.Time // when each instance's last probe started
}

// New returns a Prober.
func New(opts Options) (*Prober, error) {
	switch {
	case opts.Timeout < 0 || opts.Timeout > MaxTimeout:
		return nil, fmt.Errorf("reach: timeout %v outside (0, %v]", opts.Timeout, MaxTimeout)
	case opts.MinInterval < 0:
		return nil, fmt.Errorf("reach: negative minimum interval %v", opts.MinInterval)
	case opts.Parallel < 0:
		return nil, fmt.Errorf("reach: negative parallel %d", opts.Parallel)
	}
	opts.Timeout = cmp.Or(opts.Timeout, MaxTimeout)
	opts.MinInterval = cmp.Or(opts.MinInterval, DefaultMinInterval)
	opts.Parallel = cmp.Or(opts.Parallel, DefaultParallel)
	opts.Resolver = cmp.Or(opts.Resolver, net.DefaultResolver)
	opts.Logger = cmp.Or(opts.Logger, slog.New(slog.DiscardHandler))
	if opts.OwnAddrs == nil {
		own, err := interfaceAddrs()
		if err != nil {
			return nil, fmt.Errorf("reach: the panel's own addresses: %w", err)
		}
		opts.OwnAddrs = own
	}
	return &Prober{opts: opts, sem: make(chan struct{}, opts.Parallel),
		running: map[string]bool{}, lastRun: map[string]time.Time{}}, nil
}

// Probe probes req's ports on req's address, all at once, each within the
// timeout, and returns the report (results in port order). It returns
// ErrInvalid, ErrBusy or ErrRateLimited (wrapped, saying when to retry)
// without probing anything. An address the policy refuses, or a name that
// does not resolve, is a report whose every result says so.
func (p *Prober) Probe(ctx context.Context, req Request) (wire.ProbeReport, error) {
	if err := validate(req); err != nil {
		return wire.ProbeReport{}, err
	}
	if err := p.begin(req.InstanceID); err != nil {
		return wire.ProbeReport{}, err
	}
	defer p.end(req.InstanceID)
	start := time.Now()
	results := make([]wire.ProbeResult, len(req.Ports))
	addr, refused := p.resolve(ctx, req.Address)
	if refused != "" {
		for i, port := range req.Ports {
			results[i] = wire.ProbeResult{Name: port.Name, Host: req.Address, Port: port.Port, Protocol: port.Protocol,
				Check: CheckNone, Error: refused}
		}
	} else {
		var wg sync.WaitGroup
		for i, port := range req.Ports {
			wg.Go(func() { results[i] = p.probePort(ctx, addr, port) })
		}
		wg.Wait()
	}
	p.opts.Logger.Info("inbound probe", "instance", req.InstanceID, "address", req.Address, "ports", len(req.Ports),
		"refused", refused, "duration", time.Since(start).Round(time.Millisecond))
	return wire.ProbeReport{Timestamp: time.Now().UTC(), Direction: wire.DirectionInbound, Results: results}, nil
}

// validate checks a request before anything is probed.
func validate(req Request) error {
	switch {
	case req.InstanceID == "":
		return fmt.Errorf("%w: no instance", ErrInvalid)
	case req.Address == "":
		return fmt.Errorf("%w: the host reports no public address", ErrInvalid)
	case len(req.Ports) == 0:
		return fmt.Errorf("%w: the instance declares no ports", ErrInvalid)
	case len(req.Ports) > MaxPorts:
		return fmt.Errorf("%w: %d ports, at most %d", ErrInvalid, len(req.Ports), MaxPorts)
	}
	for _, port := range req.Ports {
		switch {
		case port.Protocol != TCP && port.Protocol != UDP:
			return fmt.Errorf("%w: port %q: protocol %q, want tcp or udp", ErrInvalid, port.Name, port.Protocol)
		case port.Port < 1 || port.Port > 65535:
			return fmt.Errorf("%w: port %q: %d outside 1-65535", ErrInvalid, port.Name, port.Port)
		case port.Query && port.Protocol != UDP:
			return fmt.Errorf("%w: port %q: A2S query is udp only", ErrInvalid, port.Name)
		}
	}
	return nil
}

// begin claims the instance for one probe.
func (p *Prober) begin(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.running[id] {
		return ErrBusy
	}
	if last, ok := p.lastRun[id]; ok {
		if wait := p.opts.MinInterval - now.Sub(last); wait > 0 {
			return fmt.Errorf("%w: instance %s was probed %v ago; retry in %v", ErrRateLimited, id,
				now.Sub(last).Round(time.Second), wait.Round(time.Second))
		}
	}
	for other, last := range p.lastRun { // forget what no longer limits
		if now.Sub(last) >= p.opts.MinInterval {
			delete(p.lastRun, other)
		}
	}
	p.running[id] = true
	p.lastRun[id] = now
	return nil
}

func (p *Prober) end(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, id)
}

// resolve turns the reported address into the one address to probe, or
// says why none may be. A name is resolved once, here; every address it
// resolves to must pass the policy (so a name cannot smuggle in a private
// one), and the probe dials the first, never the name again.
func (p *Prober) resolve(ctx context.Context, address string) (netip.Addr, string) {
	addrs, err := p.lookup(ctx, address)
	if err != nil {
		return netip.Addr{}, "not probed: " + err.Error()
	}
	if !p.opts.AllowPrivate {
		for _, a := range addrs {
			if why := refusedAs(a, p.opts.OwnAddrs); why != "" {
				said := Refusal(a, p.opts.OwnAddrs)
				if a.String() != address {
					said = address + " resolves to " + a.Unmap().String() + ", " + why
				}
				return netip.Addr{}, "refused: " + said + "; the panel probes only public addresses"
			}
		}
	}
	return addrs[0].Unmap(), ""
}

// lookup is address as an IP, or what the name resolves to.
func (p *Prober) lookup(ctx context.Context, address string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(address); err == nil {
		return []netip.Addr{a}, nil
	}
	if _, _, err := net.SplitHostPort(address); err == nil {
		return nil, fmt.Errorf("address %q has a port; the host must report an address only", address)
	}
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	addrs, err := p.opts.Resolver.LookupNetIP(ctx, "ip", address)
	if err != nil {
		return nil, errors.New(netprobe.Describe(ctx, err, p.opts.Timeout))
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("lookup %s: no addresses", address)
	}
	return addrs, nil
}

// probePort probes one port on addr within the timeout, once a slot of
// the shared bound is free.
func (p *Prober) probePort(ctx context.Context, addr netip.Addr, port Port) wire.ProbeResult {
	res := wire.ProbeResult{Name: port.Name, Host: addr.String(), Port: port.Port, Protocol: port.Protocol}
	select {
	case p.sem <- struct{}{}:
		defer func() { <-p.sem }()
	case <-ctx.Done():
		res.Check, res.Error = CheckNone, "canceled"
		return res
	}
	target := net.JoinHostPort(addr.String(), strconv.Itoa(port.Port))
	switch {
	case port.Protocol == TCP:
		res.Check = CheckTCPConnect
		res.LatencyMS, res.Error = netprobe.TCP(ctx, &p.dialer, target, p.opts.Timeout)
		res.OK = res.Error == ""
	case port.Query:
		res.Check = CheckA2SInfo
		p.queryA2S(ctx, target, &res)
	default:
		res.Check, res.Error = CheckNone, NotVerifiable
	}
	return res
}

// queryA2S asks target for A2S_INFO and fills res: ok with the latency of
// the whole exchange (a challenge included) and the player count, or why
// not.
func (p *Prober) queryA2S(ctx context.Context, target string, res *wire.ProbeResult) {
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	start := time.Now()
	info, err := a2s.Query(ctx, &p.dialer, target)
	if err != nil {
		res.Error = "a2s_info: " + netprobe.Describe(ctx, err, p.opts.Timeout)
		return
	}
	res.OK = true
	res.LatencyMS = new(netprobe.Millis(time.Since(start)))
	res.Server = info.Name
	res.Players = new(int(info.Players))
	res.MaxPlayers = new(int(info.MaxPlayers))
}
