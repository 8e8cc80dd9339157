package console

import (
	"net/http"
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/web/ui"
)

// MaxLineBytes caps a line sent to stdin or RCON (the agent's RCON client
// refuses more than 4086 bytes anyway).
const MaxLineBytes = 4086

// page serves the console tab.
func (f *Feature) page(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	head, err := f.Head.Frame(r, p)
	if err != nil {
		return err
	}
	license, instance := head.License, head.Instance
	url := ui.InstanceURL(license, instance) + "/console"
	v := ui.ConsoleView{Head: head, StreamURL: url + "/stream", SendURL: url + "/send", CanSend: p.CanAct(license), Why: server.WhyNot(p, license),
		NoInput: noInput(f.consoles(r, license, instance))}
	return server.Render(w, r, http.StatusOK, ui.ConsolePage(server.InstancePage(p, instance+" console"), v))
}

// send serves POST …/console/send: one line (form field "line") to the
// game's stdin through the agent's send func.
func (f *Feature) send(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	if _, err := f.relayLine(r, "line", wire.FuncSend, nil); err != nil {
		return err
	}
	if server.IsHTMX(r) {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	http.Redirect(w, r, ui.InstanceURL(r.PathValue("license"), r.PathValue("instance"))+"/console", http.StatusSeeOther)
	return nil
}

// CheckLine refuses a console or RCON line the agent could not take as
// one line, with the reason in words.
func CheckLine(line string) error {
	switch {
	case strings.TrimSpace(line) == "":
		return httpx.Errorf(http.StatusBadRequest, "type something to send first")
	case strings.ContainsAny(line, "\r\n"):
		return httpx.Errorf(http.StatusBadRequest, "send one line at a time (the text holds a line break)")
	case strings.ContainsRune(line, 0):
		return httpx.Errorf(http.StatusBadRequest, "the line holds a NUL byte, which cannot be sent")
	case len(line) > MaxLineBytes:
		return httpx.Errorf(http.StatusBadRequest, "the line is %d bytes long; at most %d can be sent", len(line), MaxLineBytes)
	}
	return nil
}

// relayLine passes one posted line (form field field) to the instance's
// agent func fn as its "command", decoding the reply into reply (may be
// nil). The line is the audit target, with password-like arguments blanked.
func (f *Feature) relayLine(r *http.Request, field, fn string, reply any) (string, error) {
	license, instance, err := server.PathIDs(r)
	if err != nil {
		return "", err
	}
	line := r.PostFormValue(field)
	server.SetAuditTarget(r, RedactCommand(line))
	if err := CheckLine(line); err != nil {
		return "", err
	}
	ctx, cancel := contextWithTimeout(r, sendTimeout)
	defer cancel()
	if err := f.Agent.Instance(ctx, license, instance, fn, map[string]string{"command": line}, reply); err != nil {
		return "", server.AgentError(err)
	}
	return line, nil
}
