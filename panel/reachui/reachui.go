// Package reachui is the instance page's inbound reachability probe
// (docs/probe.md): the card with the panel's last probe, the "Check
// reachability" button (operators with a grant for the license; audited),
// and the probe the panel runs by itself after each start (Auto). It
// probes with panel/reach, against exactly the public address the host
// reports and the ports the instance declares, and keeps the last report
// in the store.
package reachui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/reach"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// Store is what the feature reads and writes (*store.Store).
type Store interface {
	Host(ctx context.Context, license string) (store.Host, error)
	Instance(ctx context.Context, license, id string) (store.Instance, error)
	SaveProbe(ctx context.Context, license, id string, p store.Probe) error
	InstanceProbe(ctx context.Context, license, id string) (store.Probe, bool, error)
}

// Deps are the feature's parts.
type Deps struct {
	Store  Store
	Prober *reach.Prober
}

// Feature serves the reachability card and probe.
type Feature struct {
	st Store         // immutable after New
	pr *reach.Prober // immutable after New
}

// New returns the feature.
func New(d Deps) *Feature { return &Feature{st: d.Store, pr: d.Prober} }

// Routes are the card (GET) and the probe on request (POST, audited).
func (f *Feature) Routes() []httpx.Route {
	return []httpx.Route{
		{Pattern: "GET /hosts/{license}/instances/{instance}/reach", Need: httpx.View, Handler: f.card},
		{Pattern: "POST /hosts/{license}/instances/{instance}/reach", Need: httpx.Act, Audit: "instance.reach", Handler: f.probe},
	}
}

// card serves the card with the last probe.
func (f *Feature) card(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, id, err := server.PathIDs(r)
	if err != nil {
		return err
	}
	c, err := f.cardData(r.Context(), license, id, p)
	if err != nil {
		return err
	}
	return server.Render(w, r, http.StatusOK, ui.Reach(c))
}

// probe serves POST …/reach: it probes now and answers the card with the
// result (a plain form is sent back to the instance page). Busy, rate
// limited and nothing to probe are refusals in words.
func (f *Feature) probe(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, id, err := server.PathIDs(r)
	if err != nil {
		return err
	}
	if _, err := Probe(r.Context(), f.st, f.pr, license, id); err != nil {
		return probeError(err)
	}
	if !server.IsHTMX(r) {
		http.Redirect(w, r, ui.InstanceURL(license, id), http.StatusSeeOther)
		return nil
	}
	c, err := f.cardData(r.Context(), license, id, p)
	if err != nil {
		return err
	}
	return server.Render(w, r, http.StatusOK, ui.Reach(c))
}

// probeError is a probe's refusal in words with its status.
func probeError(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return httpx.Wrap(http.StatusNotFound, "there is no such instance", err)
	case errors.Is(err, reach.ErrBusy):
		return httpx.Wrap(http.StatusConflict, "a probe of this instance is running", err)
	case errors.Is(err, reach.ErrRateLimited):
		return httpx.Wrap(http.StatusTooManyRequests, err.Error(), err)
	case errors.Is(err, reach.ErrInvalid):
		return httpx.Wrap(http.StatusConflict, "nothing to probe: "+err.Error(), err)
	}
	return err
}

// Probe probes the instance on its host's reported public address and its
// declared ports — nothing else — and stores the report. reach's errors
// (ErrInvalid when the host reports no address or the instance declares no
// port, ErrBusy, ErrRateLimited) and store.ErrNotFound pass through.
func Probe(ctx context.Context, st Store, pr *reach.Prober, license, id string) (store.Probe, error) {
	h, err := st.Host(ctx, license)
	if err != nil {
		return store.Probe{}, err
	}
	in, err := st.Instance(ctx, license, id)
	if err != nil {
		return store.Probe{}, err
	}
	rep, err := pr.Probe(ctx, reach.Request{InstanceID: license + "/" + id, Address: h.PublicAddress, Ports: reach.ToPorts(in.Ports)})
	if err != nil {
		return store.Probe{}, err
	}
	sp := store.Probe{At: rep.Timestamp, Verdict: reach.Verdict(rep), Players: reach.Players(rep), Report: rep}
	if err := st.SaveProbe(ctx, license, id, sp); err != nil {
		return store.Probe{}, err
	}
	return sp, nil
}

// cardData is the card for p: the host's address, the instance's ports,
// the last probe in words.
func (f *Feature) cardData(ctx context.Context, license, id string, p *auth.Principal) (ui.ReachCard, error) {
	h, err := f.st.Host(ctx, license)
	if err != nil {
		return ui.ReachCard{}, notFound(err, "there is no host %s", license)
	}
	in, err := f.st.Instance(ctx, license, id)
	if err != nil {
		return ui.ReachCard{}, notFound(err, "host %s has no instance %s", license, id)
	}
	why := server.WhyNot(p, license)
	c := ui.ReachCard{License: license, Instance: id, CanAct: why == "", ViewerWhy: why, Address: h.PublicAddress}
	for _, pt := range in.Ports {
		c.Ports = append(c.Ports, pt.Name+" "+pt.Protocol+" "+strconv.Itoa(pt.Port))
	}
	switch {
	case h.PublicAddress == "":
		c.Missing = "The host reports no public address: set public_address in the [agent] table of its agent.toml."
	case len(in.Ports) == 0:
		c.Missing = "The instance declares no ports: add [[instance.port]] tables to its agent.toml, or create it from a template."
	}
	last, ok, err := f.st.InstanceProbe(ctx, license, id)
	if err != nil {
		return ui.ReachCard{}, notFound(err, "host %s has no instance %s", license, id)
	}
	if ok {
		c.At, c.Verdict, c.Rows, c.Report = last.At, last.Verdict, rows(last), reportJSON(last)
	}
	return c, nil
}

// rows is a report's results in words.
func rows(p store.Probe) []ui.ReachRow {
	out := make([]ui.ReachRow, len(p.Report.Results))
	for i, r := range p.Report.Results {
		out[i] = ui.ReachRow{Name: r.Name, Target: r.Host + ":" + strconv.Itoa(r.Port) + "/" + r.Protocol, Check: r.Check,
			OK: r.OK, Words: reach.Describe(r), Latency: "—"}
		if r.LatencyMS != nil {
			out[i].Latency = strconv.FormatFloat(*r.LatencyMS, 'f', 1, 64) + " ms"
		}
	}
	return out
}

func reportJSON(p store.Probe) string {
	b, err := json.MarshalIndent(p.Report, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}

func notFound(err error, format string, a ...any) error {
	if errors.Is(err, store.ErrNotFound) {
		return httpx.Errorf(http.StatusNotFound, format, a...)
	}
	return fmt.Errorf("reachability: %w", err)
}
