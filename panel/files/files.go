// Package files is the instance page's file manager tab over the agent's
// jailed files.cmd funcs: browse, view and edit text, upload, download,
// rename, delete, new folder, archive and extract. Paths go to the agent
// as the operator gave them (its jail is the security boundary) once
// obviously bad ones are refused. Only panel packages import it.
package files

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/corrosion/corrosion/agent/files"
	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/panel/agentc"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/web/ui"
)

// Feature serves the file manager tab and its operations.
type Feature struct {
	server.Tab // immutable after New
}

var _ httpx.Feature = (*Feature)(nil)

// New returns the feature.
func New(d server.TabDeps) *Feature { return &Feature{Tab: d.Tab("files")} }

const base = "/hosts/{license}/instances/{instance}/files"

// Routes implements httpx.Feature.
func (f *Feature) Routes() []httpx.Route {
	return []httpx.Route{
		{Pattern: "GET " + base, Need: httpx.View, Handler: f.list},
		{Pattern: "GET " + base + "/view", Need: httpx.View, Handler: f.view},
		{Pattern: "GET " + base + "/download", Need: httpx.View, Handler: f.download},
		{Pattern: "POST " + base + "/save", Need: httpx.Act, Audit: "files.save", Handler: f.save},
		{Pattern: "POST " + base + "/upload", Need: httpx.Act, Audit: "files.upload", Handler: f.upload},
		{Pattern: "POST " + base + "/mkdir", Need: httpx.Act, Audit: "files.mkdir", Handler: f.mkdir},
		{Pattern: "POST " + base + "/newfile", Need: httpx.Act, Audit: "files.create", Handler: f.newFile},
		{Pattern: "POST " + base + "/rename", Need: httpx.Act, Audit: "files.rename", Handler: f.rename},
		{Pattern: "POST " + base + "/delete", Need: httpx.Act, Audit: "files.delete", Handler: f.remove},
		{Pattern: "POST " + base + "/archive", Need: httpx.Act, Audit: "files.archive", Handler: f.archive},
		{Pattern: "POST " + base + "/extract", Need: httpx.Act, Audit: "files.extract", Handler: f.extract},
	}
}

// call runs an fm_* func, its error put in words (the agent's error stays
// its cause: agentCode reads its code).
func (f *Feature) call(ctx context.Context, license, instance, fn string, args, reply any) error {
	if err := f.Agent.Files(ctx, license, instance, fn, args, reply); err != nil {
		return server.AgentError(err)
	}
	return nil
}

// agentCode is the code of the agent's error reply in err, "" when err
// is not one.
func agentCode(err error) string {
	var ae *agentc.AgentError
	if errors.As(err, &ae) {
		return ae.Code
	}
	return ""
}

// tabURL is the files tab's URL for a license, instance and folder.
func tabURL(license, instance, dir string) string {
	u := ui.InstanceURL(license, instance) + "/files"
	if dir == "" {
		return u
	}
	return u + "?path=" + url.QueryEscape(dir)
}

// done answers a successful operation: htmx is sent (HX-Redirect) to the
// folder's listing with a note of what happened, a plain form is
// redirected there.
func done(w http.ResponseWriter, r *http.Request, license, instance, dir, what, path string) {
	target := tabURL(license, instance, dir)
	sep := "?"
	if dir != "" {
		sep = "&"
	}
	target += sep + "done=" + url.QueryEscape(what) + "&target=" + url.QueryEscape(path)
	redirect(w, r, target)
}

// redirect sends htmx (HX-Redirect) or a plain form (303) to target.
func redirect(w http.ResponseWriter, r *http.Request, target string) {
	if server.IsHTMX(r) {
		w.Header().Set("HX-Redirect", target)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// postedTarget reads the request's instance and the path a form posts in
// field (what: the operation, for messages).
func postedTarget(r *http.Request, field, what string) (license, instance, fp string, err error) {
	if license, instance, err = server.PathIDs(r); err != nil {
		return "", "", "", err
	}
	if fp, err = cleanTarget(r.PostFormValue(field), what); err != nil {
		return "", "", "", err
	}
	return license, instance, fp, nil
}

// target is the file a GET names in ?path=, with what the agent says is there.
type target struct {
	license, instance, path string
	stat                    files.StatReply
}

// statTarget reads the request's instance and path (what: the operation,
// for messages) and stats the path through the agent.
func (f *Feature) statTarget(ctx context.Context, r *http.Request, what string) (target, error) {
	license, instance, err := server.PathIDs(r)
	if err != nil {
		return target{}, err
	}
	fp, err := cleanTarget(r.URL.Query().Get("path"), what)
	if err != nil {
		return target{}, err
	}
	t := target{license: license, instance: instance, path: fp}
	if err := f.call(ctx, license, instance, wire.FuncFMStat, map[string]string{"path": fp}, &t.stat); err != nil {
		return target{}, err
	}
	return t, nil
}
