package fleetui

import (
	"bytes"
	"context"
	"hash/maphash"
	"strconv"
	"time"

	"github.com/a-h/templ"

	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// viewerWhy is the reason on the power buttons of those who may only view
// (the streams send the non-actors' variant only to them).
const viewerWhy = server.WhyViewer

// render turns a renderSet into the fragments of the wanted views, and
// records what the streams were told of the host's online state. With
// dedupe, a fragment identical to the last one sent under its name is
// left out (a cell that did not change is not swapped).
func (m *model) render(lh *liveHost, set renderSet, want livestate.View, now time.Time, dedupe bool) []livestate.Fragment {
	h := lh.host
	row := hostRow(h, lh.spark, now)
	if set.host {
		lh.shownOn, lh.shownOld = row.Online, row.Stale
	}
	r := fragmenter{license: h.License}
	if dedupe {
		r.sent = lh.sent
	}
	if want&livestate.ViewFleet != 0 && set.host {
		r.fleetRow(row)
		if set.fleetNew {
			r.trigger(livestate.ViewFleet, "", ui.EventFleetChanged)
		}
	}
	if want&livestate.ViewFleet != 0 && set.state {
		r.trigger(livestate.ViewFleet, "", ui.EventServersChanged) // the Servers page refetches its table
	}
	if want&livestate.ViewHost != 0 && set.layout {
		r.trigger(livestate.ViewHost, "", ui.EventLayout)
	}
	if want&livestate.ViewHost != 0 && set.host {
		hp := hostPage(h, lh.spark, now)
		if want&livestate.ViewFleet == 0 || !dedupe { // the fleet row sent it already otherwise
			r.add(livestate.ViewHost, "", ui.EventHostBadge(h.License), ui.HostBadge(row))
		}
		r.add(livestate.ViewHost, "", ui.EventHostFacts(h.License), ui.HostFacts(hp))
		r.add(livestate.ViewHost, "", ui.EventHostProbes(h.License), ui.Probes(hp.ProbeAt, hp.Probes))
		r.trigger(livestate.ViewHost, "", ui.EventHostBeat(h.License))
	}
	if want&(livestate.ViewHost|livestate.ViewInstance) != 0 {
		for _, id := range set.insts {
			if in := lh.insts[id]; in != nil {
				r.instance(*in, row, want, now)
			}
		}
	}
	if want&livestate.ViewInstance != 0 {
		for _, id := range set.timeline {
			r.trigger(livestate.ViewInstance, id, ui.EventInstanceTimeline(id))
		}
	}
	return r.out
}

func (r *fragmenter) fleetRow(row ui.HostRow) {
	l, v := row.License, livestate.ViewFleet|livestate.ViewHost
	r.add(v, "", ui.EventHostBadge(l), ui.HostBadge(row))
	v = livestate.ViewFleet
	r.add(v, "", ui.EventHostCell(l, ui.CellAgent), ui.Text(row.AgentVersion))
	r.add(v, "", ui.EventHostCell(l, ui.CellCPU), ui.HostCPU(row))
	r.add(v, "", ui.EventHostCell(l, ui.CellMem), ui.StaleText(row.Mem, !row.Online))
	r.add(v, "", ui.EventHostCell(l, ui.CellDisk), ui.StaleText(row.Disk, !row.Online))
	r.add(v, "", ui.EventHostCell(l, ui.CellCounts), ui.Counts(row.Counts))
}

// instance renders an instance's badge and power buttons (host table and
// instance frame), its table cells and its overview card.
func (r *fragmenter) instance(in store.Instance, row ui.HostRow, want livestate.View, now time.Time) {
	id, state, both := in.ID, string(in.State), livestate.ViewHost|livestate.ViewInstance
	r.add(both, id, ui.EventInstanceBadge(id), ui.InstanceBadge(state, row.Online, row.Stale))
	r.addActors(both, id, ui.EventInstancePower(id), func(why string) templ.Component {
		return ui.PowerButtons(in.License, id, state, why == "", why)
	})
	if want&livestate.ViewHost != 0 {
		ir := instanceRow(in, row.Online, row.Stale, "", now)
		r.add(livestate.ViewHost, id, ui.EventInstanceCell(id, ui.CellUptime), ui.Text(ir.Uptime))
		r.add(livestate.ViewHost, id, ui.EventInstanceCell(id, ui.CellCrashes), ui.Text(strconv.Itoa(ir.CrashCount)))
		r.add(livestate.ViewHost, id, ui.EventInstanceCell(id, ui.CellCPU), ui.StaleText(ir.CPU, !row.Online))
		r.add(livestate.ViewHost, id, ui.EventInstanceCell(id, ui.CellMem), ui.StaleText(ir.RSS, !row.Online))
	}
	if want&livestate.ViewInstance != 0 {
		r.add(livestate.ViewInstance, id, ui.EventInstanceDetails(id), ui.InstanceDetailsCard(details(in, row.Online, row.Stale, now)))
	}
}

// dedupeSeed hashes fragments for the dedupe (a collision would skip one
// update of one cell: 2⁻⁶⁴).
var dedupeSeed = maphash.MakeSeed()

// fragmenter collects rendered fragments of one license.
type fragmenter struct {
	license string
	sent    map[string]uint64 // hash of the host's last fragment per name and audience; nil: no dedupe
	out     []livestate.Fragment
	buf     bytes.Buffer
}

func (r *fragmenter) add(views livestate.View, instance, name string, c templ.Component) {
	r.addFor(livestate.Everyone, views, instance, name, c)
}

// trigger adds an event whose arrival is the message (a page part then
// fetches itself); it is never deduplicated.
func (r *fragmenter) trigger(views livestate.View, instance, name string) {
	r.out = append(r.out, livestate.Fragment{License: r.license, Instance: instance, Views: views, Name: name, HTML: []byte(name)})
}

// addActors adds two variants: the actors' (buttons enabled) and the
// viewers' (disabled, with the reason).
func (r *fragmenter) addActors(views livestate.View, instance, name string, c func(why string) templ.Component) {
	r.addFor(livestate.Actors, views, instance, name, c(""))
	r.addFor(livestate.NonActors, views, instance, name, c(viewerWhy))
}

func (r *fragmenter) addFor(aud livestate.Audience, views livestate.View, instance, name string, c templ.Component) {
	r.buf.Reset()
	if err := c.Render(context.Background(), &r.buf); err != nil {
		return // rendering into memory fails only on a template bug; the page refetches on its next event
	}
	html := bytes.Clone(r.buf.Bytes())
	if r.sent != nil {
		key, sum := name+"|"+strconv.Itoa(int(aud)), maphash.Bytes(dedupeSeed, html)
		if r.sent[key] == sum {
			return
		}
		r.sent[key] = sum
	}
	r.out = append(r.out, livestate.Fragment{License: r.license, Instance: instance, Views: views, Audience: aud,
		Name: name, HTML: html})
}
