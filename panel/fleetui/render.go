package fleetui

import (
	"bytes"
	"context"
	"time"

	"github.com/a-h/templ"

	"github.com/corrosion/corrosion/panel/livestate"
	"github.com/corrosion/corrosion/panel/store"
	ui "github.com/corrosion/corrosion/web/panel"
)

// viewerWhy is the reason on the power buttons of those who may only view
// (the streams send the non-actors' variant only to them).
const viewerWhy = "you are a viewer"

// render turns a renderSet into the fragments of the wanted views, and
// records what the streams were told of the host's online state.
func (m *model) render(lh *liveHost, set renderSet, want livestate.View, now time.Time) []livestate.Fragment {
	h := lh.host
	row := hostRow(h, lh.spark, now)
	if set.host {
		lh.shownOn, lh.shownOld = row.Online, row.Stale
	}
	r := fragmenter{license: h.License}
	if want&livestate.ViewFleet != 0 {
		if set.host {
			r.add(livestate.ViewFleet, "", ui.EventFleetRow(h.License), ui.FleetRow(row))
		}
		if set.fleetNew {
			r.add(livestate.ViewFleet, "", ui.EventFleetChanged, templ.Raw("changed"))
		}
	}
	if want&(livestate.ViewHost|livestate.ViewInstance) != 0 && set.removed {
		r.add(livestate.ViewHost|livestate.ViewInstance, "", ui.EventRefetch, templ.Raw("refetch"))
	}
	if want&livestate.ViewHost != 0 {
		if set.host {
			hp := hostPage(h, lh.spark, now)
			r.add(livestate.ViewHost, "", ui.EventHostBadge(h.License), ui.HostBadge(row))
			r.add(livestate.ViewHost, "", ui.EventHostFacts(h.License), ui.HostFacts(hp))
			r.add(livestate.ViewHost, "", ui.EventHostProbes(h.License), ui.Probes(hp.ProbeAt, hp.Probes))
			r.add(livestate.ViewHost, "", ui.EventHostBeat(h.License), templ.Raw("beat"))
		}
		for _, id := range set.insts {
			if in := lh.insts[id]; in != nil {
				r.addActors(livestate.ViewHost, id, ui.EventInstanceRow(id), func(why string) templ.Component {
					return ui.InstanceTableRow(instanceRow(*in, row.Online, row.Stale, why, now))
				})
			}
		}
	}
	if want&livestate.ViewInstance != 0 {
		for _, id := range set.insts {
			if in := lh.insts[id]; in != nil {
				m.renderInstance(&r, *in, row, now)
			}
		}
		for _, id := range set.timeline {
			r.add(livestate.ViewInstance, id, ui.EventInstanceTimeline(id), templ.Raw("event"))
		}
	}
	return r.out
}

func (m *model) renderInstance(r *fragmenter, in store.Instance, row ui.HostRow, now time.Time) {
	id, state := in.ID, string(in.State)
	r.add(livestate.ViewInstance, id, ui.EventInstanceBadge(id), ui.InstanceBadge(state, row.Online, row.Stale))
	r.addActors(livestate.ViewInstance, id, ui.EventInstancePower(id), func(why string) templ.Component {
		return ui.PowerButtons(in.License, id, state, why == "", why)
	})
	r.add(livestate.ViewInstance, id, ui.EventInstanceDetails(id), ui.InstanceDetailsCard(details(in, row.Online, row.Stale, now)))
}

// fragmenter collects rendered fragments of one license.
type fragmenter struct {
	license string
	out     []livestate.Fragment
	buf     bytes.Buffer
}

func (r *fragmenter) add(views livestate.View, instance, name string, c templ.Component) {
	r.addFor(livestate.Everyone, views, instance, name, c)
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
	r.out = append(r.out, livestate.Fragment{License: r.license, Instance: instance, Views: views, Audience: aud,
		Name: name, HTML: bytes.Clone(r.buf.Bytes())})
}
