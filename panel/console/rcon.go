package console

import (
	"context"
	"net/http"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/web/ui"
)

// rconPage serves the RCON tab: an empty terminal (the history of a
// session lives in the page) and the command input.
func (f *Feature) rconPage(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	return f.renderRCON(w, r, p, nil)
}

func (f *Feature) renderRCON(w http.ResponseWriter, r *http.Request, p *auth.Principal, entries []ui.RCONEntry) error {
	license, instance, err := InstanceIDs(r)
	if err != nil {
		return err
	}
	head, err := f.frameHead(r.Context(), p, license, instance)
	if err != nil {
		return err
	}
	v := ui.RCONView{Head: head, PostURL: ui.InstanceURL(license, instance) + "/rcon",
		CanSend: p.CanAct(license), Why: WhyNot(p, license), Entries: entries, NoRCON: noRCON(f.consoles(r, license, instance))}
	return server.Render(w, r, http.StatusOK, ui.RCONPage(page(p, instance+" RCON"), v))
}

// rcon serves POST …/rcon: one command (form field "command") through the
// agent's rcon func. htmx gets the history entry to append; a plain form
// gets the tab with that entry.
func (f *Feature) rcon(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	var rep wire.RCONReply
	cmd, err := f.relayLine(r, "command", "rcon", &rep)
	if err != nil {
		return err
	}
	e := ui.RCONEntry{Command: cmd, Output: rep.Output, At: time.Now().UTC()}
	if isHTMX(r) {
		return server.Render(w, r, http.StatusOK, ui.RCONEntryView(e))
	}
	return f.renderRCON(w, r, p, []ui.RCONEntry{e})
}

func contextWithTimeout(r *http.Request, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), d)
}
