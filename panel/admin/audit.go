package admin

import (
	"net/http"
	"net/url"
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

// AuditPageSize is the number of rows on one page of the audit log.
const AuditPageSize = 50

// auditScopeText tells a non-admin what the audit page shows them.
const auditScopeText = "You see the rows of the hosts you have a grant for, and your own actions."

// formTime is how datetime-local inputs send a moment (read as UTC).
const formTime = "2006-01-02T15:04"

// auditPage serves GET /audit: admins see every row, others the rows of
// licenses they can view plus their own actions.
func (f *Feature) auditPage(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	q := r.URL.Query()
	form := ui.AuditForm{User: q.Get("user"), Action: q.Get("action"), License: q.Get("license"),
		Instance: q.Get("instance"), Result: q.Get("result"), Since: q.Get("since"), Until: q.Get("until")}
	filter, err := parseAuditFilter(form, q.Get("before"))
	if err != nil {
		return err
	}
	v := ui.AuditView{Form: form, Actions: knownActions}
	if !p.IsAdmin() {
		filter.Scope = &store.AuditScope{UserID: p.UserID, Licenses: p.Licenses}
		v.Scope = auditScopeText
	}
	filter.Limit = AuditPageSize + 1 // one more tells whether an older page exists
	rows, err := f.deps.Store.Audit(r.Context(), filter)
	if err != nil {
		return httpx.Wrap(http.StatusServiceUnavailable, "the panel cannot read the audit log right now; try again", err)
	}
	if len(rows) > AuditPageSize {
		rows = rows[:AuditPageSize]
		v.Older = auditURL(q, "before", strconv.FormatInt(rows[len(rows)-1].ID, 10))
	}
	if filter.Before > 0 {
		v.Newest = auditURL(q, "before", "")
	}
	for _, e := range rows {
		v.Rows = append(v.Rows, auditRow(e, p))
	}
	return server.Render(w, r, http.StatusOK, ui.AuditPage(server.PageFor(p, "Audit log", ui.NavAudit), v))
}

// parseAuditFilter checks the typed filter; a bad field is a 400 that
// names it.
func parseAuditFilter(form ui.AuditForm, before string) (store.AuditFilter, error) {
	f := store.AuditFilter{User: strings.TrimSpace(form.User), Action: strings.TrimSpace(form.Action),
		License: strings.TrimSpace(form.License), Instance: strings.TrimSpace(form.Instance)}
	switch store.AuditResult(form.Result) {
	case "", store.AuditOK, store.AuditDenied, store.AuditError:
		f.Result = store.AuditResult(form.Result)
	default:
		return f, httpx.Errorf(http.StatusBadRequest, "result %q is not ok, denied or error", form.Result)
	}
	if f.License != "" && !wire.ValidLicenseID(f.License) {
		return f, httpx.Errorf(http.StatusBadRequest, "%q is not a license id", f.License)
	}
	var err error
	if f.Since, err = parseFormTime("from", form.Since); err != nil {
		return f, err
	}
	if f.Until, err = parseFormTime("until", form.Until); err != nil {
		return f, err
	}
	if before != "" {
		if f.Before, err = strconv.ParseInt(before, 10, 64); err != nil || f.Before <= 0 {
			return f, httpx.Errorf(http.StatusBadRequest, "page %q is not a row number", before)
		}
	}
	return f, nil
}

func parseFormTime(field, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation(formTime, v, time.UTC)
	if err != nil {
		if t, err = time.Parse(time.RFC3339, v); err != nil {
			return time.Time{}, httpx.Errorf(http.StatusBadRequest, "%s: %q is not a time like 2026-11-24T12:03", field, v)
		}
	}
	return t, nil
}

// auditURL is /audit with the query q, key set to v (removed when empty).
func auditURL(q url.Values, key, v string) string {
	q2 := url.Values{}
	for k, vs := range q {
		if vs[0] != "" && k != key {
			q2.Set(k, vs[0])
		}
	}
	if v != "" {
		q2.Set(key, v)
	}
	if len(q2) == 0 {
		return "/audit"
	}
	return "/audit?" + q2.Encode()
}

func auditRow(e store.AuditEntry, p *auth.Principal) ui.AuditRow {
	r := ui.AuditRow{At: e.At.UTC().Format("2006-01-02 15:04:05 UTC"), AtISO: e.At.UTC().Format(time.RFC3339),
		User: e.UserName, Action: e.Action, License: e.License, Instance: e.Instance, Target: e.Target,
		Result: string(e.Result), Detail: e.Detail, Remote: e.RemoteAddr}
	if e.License != "" && wire.ValidLicenseID(e.License) && p.CanView(e.License) {
		r.Href = "/hosts/" + e.License
		if e.Instance != "" && wire.ValidInstanceID(e.Instance) {
			r.Href += "/instances/" + e.Instance
		}
	}
	return r
}
