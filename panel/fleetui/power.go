package fleetui

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/agentc"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/web/ui"
)

// power serves POST …/power (form field action). It returns as soon as
// the agent accepted or refused the action (no "wait"): the new state
// reaches the page over the live stream. A refusal is an error in words.
func (f *Feature) power(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	license, id, err := server.PathIDs(r)
	if err != nil {
		return err
	}
	action := r.PostFormValue("action")
	server.SetAuditTarget(r, action)
	if !wire.IsPowerFunc(action) {
		return httpx.Errorf(http.StatusBadRequest, "unknown power action %q: use start, stop, restart or kill", action)
	}
	ctx, cancel := context.WithTimeout(r.Context(), powerTimeout)
	defer cancel()
	if err := f.d.Agents.Instance(ctx, license, id, action, nil, nil); err != nil {
		return powerError(err)
	}
	if server.IsHTMX(r) {
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
	http.Redirect(w, r, backTo(r, ui.InstanceURL(license, id)), http.StatusSeeOther)
	return nil
}

// powerError puts an agent's refusal in words (agentc.Describe), with
// plainer words for the power codes.
func powerError(err error) error {
	var ae *agentc.AgentError
	if errors.As(err, &ae) {
		switch ae.Code {
		case wire.CodeBusy:
			return httpx.Wrap(http.StatusConflict, "another power action is running", err)
		case wire.CodeAlreadyRunning:
			return httpx.Wrap(http.StatusConflict, "the instance is already running", err)
		case wire.CodeShuttingDown:
			return httpx.Wrap(http.StatusServiceUnavailable, "the agent is shutting down", err)
		}
	}
	status, msg := agentc.Describe(err)
	if status >= 500 && status != http.StatusServiceUnavailable && status != http.StatusGatewayTimeout {
		status = http.StatusBadGateway
	}
	return httpx.Wrap(status, msg, err)
}

// backTo is the same-site page a plain form post returns to (the
// Referer's path when it is one of ours), else fallback.
func backTo(r *http.Request, fallback string) string {
	ref, err := url.Parse(r.Referer())
	if err != nil || ref.Host != r.Host || !strings.HasPrefix(ref.Path, "/") || strings.HasPrefix(ref.Path, "//") {
		return fallback
	}
	if ref.RawQuery != "" {
		return ref.Path + "?" + ref.RawQuery
	}
	return ref.Path
}
