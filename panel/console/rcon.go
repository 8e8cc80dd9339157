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
	head, err := f.Head.Frame(r, p)
	if err != nil {
		return err
	}
	license, instance := head.License, head.Instance
	v := ui.RCONView{Head: head, PostURL: ui.InstanceURL(license, instance) + "/rcon",
		CanSend: p.CanAct(license), Why: server.WhyNot(p, license), Entries: entries, NoRCON: noRCON(f.consoles(r, license, instance))}
	return server.Render(w, r, http.StatusOK, ui.RCONPage(server.InstancePage(p, instance+" RCON"), v))
}

// rcon serves POST …/rcon: one command (form field "command") through the
// agent's rcon func. htmx gets the history entry to append; a plain form
// gets the tab with that entry.
func (f *Feature) rcon(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	var rep wire.RCONReply
	cmd, err := f.relayLine(r, "command", wire.FuncRCON, &rep)
	if err != nil {
		return err
	}
	e := ui.RCONEntry{Command: cmd, Output: rep.Output, At: time.Now().UTC()}
	if server.IsHTMX(r) {
		return server.Render(w, r, http.StatusOK, ui.RCONEntryView(e))
	}
	return f.renderRCON(w, r, p, []ui.RCONEntry{e})
}

// sendTimeout bounds a send or an RCON command through the agent (the
// agent gives RCON 10 s).
const sendTimeout = 15 * time.Second

func contextWithTimeout(r *http.Request, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), d)
}
