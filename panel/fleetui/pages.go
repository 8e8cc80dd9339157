package fleetui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// maxSearch bounds the search text (longer input is cut, not refused).
const maxSearch = 100

// fleet serves GET /: every host the principal may see, filtered.
func (f *Feature) fleet(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	now := time.Now()
	fp, filter := fleetQuery(r, p, now)
	data, err := f.fleetData(r.Context(), fp, filter)
	if err != nil {
		return err
	}
	if p.IsAdmin() {
		data.Unknown = f.unknownLicenses(r.Context())
	}
	return server.Render(w, r, http.StatusOK, ui.Fleet(server.PageFor(p, "Fleet", ui.NavFleet), data))
}

// unknownLicenses lists the licenses heartbeats arrive from that no admin
// created (the page says so to admins; a failed read only loses the note).
func (f *Feature) unknownLicenses(ctx context.Context) []string {
	ul, err := f.d.Store.UnknownLicenses(ctx)
	if err != nil {
		f.log.Warn("cannot read unknown licenses", "err", err)
		return nil
	}
	out := make([]string, len(ul))
	for i, u := range ul {
		out[i] = u.License
	}
	return out
}

// fleetQuery reads the page's filter from the query string; unknown
// values are ignored (the page shows what it understood).
func fleetQuery(r *http.Request, p *auth.Principal, now time.Time) (ui.FleetPage, store.HostFilter) {
	q := r.URL.Query()
	fp := ui.FleetPage{Query: strings.TrimSpace(q.Get("q")), Since: now.UnixMilli(), IsAdmin: p.IsAdmin()}
	fp.Query = httpx.Truncate(fp.Query, maxSearch)
	switch v := store.Liveness(q.Get("online")); v {
	case store.OnlineOnly, store.OfflineOnly:
		fp.Liveness = string(v)
	}
	if st := q.Get("state"); known(st) {
		fp.State = st
	}
	return fp, store.HostFilter{Licenses: hostLicenses(p), Spark: SparkSamples, Now: now}
}

// fleetData reads the hosts; Visible counts them before the filter.
func (f *Feature) fleetData(ctx context.Context, fp ui.FleetPage, filter store.HostFilter) (ui.FleetPage, error) {
	if fp.Query != "" || fp.Liveness != "" { // the count before the filter, without the samples
		all, err := f.d.Store.Hosts(ctx, store.HostFilter{Licenses: filter.Licenses, Now: filter.Now})
		if err != nil {
			return fp, fmt.Errorf("fleet: %w", err)
		}
		fp.Visible = len(all)
		filter.Search, filter.State = fp.Query, store.Liveness(fp.Liveness)
	}
	live := f.liveSparksReady(ctx)
	if live {
		filter.Spark = 0 // the live model holds them
	}
	hosts, err := f.d.Store.Hosts(ctx, filter)
	if err != nil {
		return fp, fmt.Errorf("fleet: %w", err)
	}
	if filter.Search == "" && filter.State == store.AnyLiveness {
		fp.Visible = len(hosts)
	}
	if live {
		if err := f.liveSparks(ctx, hosts, filter.Now); err != nil {
			return fp, err
		}
	}
	fp.Hosts = make([]ui.HostRow, 0, len(hosts))
	for _, h := range hosts {
		if fp.State != "" && h.Counts[wire.State(fp.State)] == 0 {
			continue
		}
		fp.Hosts = append(fp.Hosts, hostRow(h, sparkOf(h.Samples), filter.Now))
	}
	return fp, nil
}

// host serves a host's page.
func (f *Feature) host(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, _, err := server.PathIDs(r)
	if err != nil {
		return err
	}
	ctx, now := r.Context(), time.Now()
	h, err := f.d.Store.Host(ctx, license)
	if err != nil {
		return notFound(err, "there is no host %s", license)
	}
	insts, err := f.d.Store.Instances(ctx, license)
	if err != nil {
		return err
	}
	samples, err := f.d.Store.Samples(ctx, license, chartsSince(now))
	if err != nil {
		return err
	}
	tail := samples
	if len(tail) > SparkSamples {
		tail = tail[len(tail)-SparkSamples:]
	}
	hp := hostPage(h, sparkOf(tail), now)
	hp.Charts = charts(samples)
	why := server.WhyNot(p, license)
	for _, in := range insts {
		hp.Instances = append(hp.Instances, instanceRow(in, hp.Row.Online, hp.Row.Stale, why, now))
	}
	return server.Render(w, r, http.StatusOK, ui.Host(server.PageFor(p, hp.Row.Name(), ui.NavFleet), hp))
}

// hostPage is the host page's data but its charts and instances.
func hostPage(h store.Host, spark []float64, now time.Time) ui.HostPage {
	hp := ui.HostPage{Row: hostRow(h, spark, now), OS: h.OS, AgentCommit: h.AgentCommit, Cores: "—",
		FirstSeen: h.FirstSeen, LastBeat: h.LastHeartbeat, Since: now.UnixMilli()}
	if h.OS != "" || h.Arch != "" {
		hp.OS = h.OS + "/" + h.Arch
	}
	if h.CPUCores != nil {
		hp.Cores = strconv.Itoa(*h.CPUCores)
	}
	if h.Seen {
		hp.Interval = ui.Duration(store.ClampInterval(h.Interval))
	}
	hp.ProbeAt, hp.Probes = probeRows(h.Probe)
	hp.Impossible = strings.Join(h.Impossible, "; ")
	switch {
	case h.ClockSkew > 0:
		hp.ClockSkew = ui.Duration(h.ClockSkew) + " ahead"
	case h.ClockSkew < 0:
		hp.ClockSkew = ui.Duration(-h.ClockSkew) + " behind"
	}
	return hp
}

// instance serves an instance's overview tab.
func (f *Feature) instance(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, id, err := server.PathIDs(r)
	if err != nil {
		return err
	}
	ctx, now := r.Context(), time.Now()
	head, in, err := head(ctx, f.d.Store, license, id, p, now)
	if err != nil {
		return err
	}
	if f.d.Worlds != nil {
		head.ClientURL = f.d.Worlds.PublicURL(license, id) // what the world reported; never a guess
	}
	evs, err := f.d.Store.Timeline(ctx, license, id, TimelineRows)
	if err != nil {
		return err
	}
	o := ui.InstanceOverview{Head: head, Details: details(in, head.HostOnline, head.HostStale, now),
		Timeline: timelineRows(evs), Since: now.UnixMilli()}
	return server.Render(w, r, http.StatusOK, ui.InstanceOverviewPage(server.InstancePage(p, id+" · "+head.HostName), o))
}

// Head is the instance frame's head for an instance tab (P3's console,
// RCON and files tabs render inside ui.InstanceFrame with it). A missing
// host or instance is an *httpx.Error with status 404.
func Head(ctx context.Context, st Store, license, instance string, p *auth.Principal) (ui.InstanceHead, error) {
	h, _, err := head(ctx, st, license, instance, p, time.Now())
	return h, err
}

func head(ctx context.Context, st Store, license, id string, p *auth.Principal, now time.Time) (ui.InstanceHead, store.Instance, error) {
	h, err := st.Host(ctx, license)
	if err != nil {
		return ui.InstanceHead{}, store.Instance{}, notFound(err, "there is no host %s", license)
	}
	in, err := st.Instance(ctx, license, id)
	if err != nil {
		return ui.InstanceHead{}, store.Instance{}, notFound(err, "host %s has no instance %s", license, id)
	}
	row := hostRow(h, nil, now)
	why := server.WhyNot(p, license)
	return ui.InstanceHead{
		License: license, Instance: id, Label: in.Label, Game: in.Game, State: string(in.State),
		StateSince: in.StateSince, Uptime: time.Duration(in.UptimeSeconds) * time.Second, CrashCount: in.CrashCount,
		PID: in.PID, HostName: row.Name(), HostOnline: row.Online, HostStale: row.Stale, CanAct: why == "", ViewerWhy: why,
		Since: now.UnixMilli(),
	}, in, nil
}

func notFound(err error, format string, a ...any) error {
	if errors.Is(err, store.ErrNotFound) {
		return httpx.Errorf(http.StatusNotFound, format, a...)
	}
	return err
}

// servers serves GET /servers: every instance on the hosts the principal
// may see, searched and filtered by state, sorted by host then name.
func (f *Feature) servers(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	sp, err := serversQuery(r, p)
	if err != nil {
		return err
	}
	sp, err = f.serversData(r.Context(), sp, hostLicenses(p), time.Now())
	if err != nil {
		return err
	}
	return server.Render(w, r, http.StatusOK, ui.Servers(server.PageFor(p, "Servers", ui.NavServers), sp))
}

// hostLicenses is the store's host filter of the licenses p may see: nil
// for an admin (every license), else a copy of p's grants (non-nil: only
// these). The fleet page and the Servers page read through it.
func hostLicenses(p *auth.Principal) []string {
	if p.IsAdmin() {
		return nil
	}
	return append([]string{}, p.Licenses...)
}

// serversQuery reads the Servers page's search and state filter; a state
// that is not one is refused in words (the server has refused text that
// is not UTF-8 before the handler runs).
func serversQuery(r *http.Request, p *auth.Principal) (ui.ServersPage, error) {
	q := r.URL.Query()
	sp := ui.ServersPage{Query: httpx.Truncate(strings.TrimSpace(q.Get("q")), maxSearch), IsAdmin: p.IsAdmin()}
	if st := q.Get("state"); st != "" {
		if !known(st) {
			return sp, httpx.Errorf(http.StatusBadRequest, "there is no server state %q: use one of %s",
				httpx.Truncate(st, maxSearch), strings.Join(ui.InstanceStates, ", "))
		}
		sp.State = st
	}
	return sp, nil
}

// serversData reads the hosts and their instances; Visible counts the
// instances before the search and filter.
func (f *Feature) serversData(ctx context.Context, sp ui.ServersPage, licenses []string, now time.Time) (ui.ServersPage, error) {
	sp.Since = now.UnixMilli()
	hosts, err := f.d.Store.Hosts(ctx, store.HostFilter{Licenses: licenses, Now: now})
	if err != nil {
		return sp, fmt.Errorf("servers: %w", err)
	}
	insts, err := f.d.Store.InstancesOf(ctx, licenses)
	if err != nil {
		return sp, fmt.Errorf("servers: %w", err)
	}
	rows := make(map[string]ui.HostRow, len(hosts))
	for _, h := range hosts {
		rows[h.License] = hostRow(h, nil, now)
	}
	needle := strings.ToLower(sp.Query)
	for _, in := range insts {
		h, ok := rows[in.License]
		if !ok {
			continue // a license disabled between the two reads
		}
		sp.Visible++
		sr := serverRow(in, h, now)
		if sp.State != "" && sr.State != sp.State || needle != "" && !strings.Contains(sr.SearchText(), needle) {
			continue
		}
		sp.Servers = append(sp.Servers, sr)
	}
	slices.SortStableFunc(sp.Servers, func(a, b ui.ServerRow) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.HostName), strings.ToLower(b.HostName)),
			cmp.Compare(a.License, b.License), cmp.Compare(strings.ToLower(a.Name()), strings.ToLower(b.Name())))
	})
	return sp, nil
}

// serverRow is one instance of the Servers table: its instance row, its
// host's name, the players its last inbound probe saw, its builds and the
// probe's verdict.
func serverRow(in store.Instance, h ui.HostRow, now time.Time) ui.ServerRow {
	sr := ui.ServerRow{InstanceRow: instanceRow(in, h.Online, h.Stale, "", now), HostName: h.Name(), Players: "—",
		Build: in.Build, AvailableBuild: in.AvailableBuild, UpdateAvailable: in.UpdateAvailable(), Reach: in.ProbeVerdict}
	if in.ProbePlayers != nil {
		sr.Players = strconv.Itoa(*in.ProbePlayers)
	}
	return sr
}
