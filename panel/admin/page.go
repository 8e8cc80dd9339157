package admin

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// flashes are the notices a finished change redirects to (?done=action);
// fixed texts, so a crafted link cannot put words on the page.
var flashes = map[string]string{
	ActionUserAdd: "Operator added.", ActionUserRole: "Role changed.", ActionUserDisable: "Operator updated.",
	ActionUserPassword: "Password set; the operator's sessions have ended.", ActionGrantSet: "Grants saved.",
	ActionLicenseAdd: "License added.", ActionLicenseDisable: "License updated.", ActionLicenseLabel: "Label saved.",
}

var roles = []string{string(auth.RoleAdmin), string(auth.RoleOperator), string(auth.RoleViewer)}

const dayTime = "2006-01-02 15:04 UTC"

// adminPage serves GET /admin.
func (f *Feature) adminPage(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
	ctx := r.Context()
	users, err := f.deps.Store.Users(ctx)
	if err != nil {
		return unavailable(err)
	}
	licenses, err := f.deps.Store.Licenses(ctx)
	if err != nil {
		return unavailable(err)
	}
	unknown, err := f.deps.Store.UnknownLicenses(ctx)
	if err != nil {
		return unavailable(err)
	}
	v := ui.AdminView{Roles: roles}
	for _, u := range users {
		v.Users = append(v.Users, adminUser(u, licenses, p))
	}
	for _, l := range licenses {
		v.Licenses = append(v.Licenses, ui.AdminLicense{ID: l.ID, Label: l.Label, Disabled: l.Disabled,
			Created: l.CreatedAt.UTC().Format(dayTime)})
	}
	for _, u := range unknown {
		v.Unknown = append(v.Unknown, ui.AdminUnknown{License: u.License, Hostname: u.Hostname, Messages: u.Messages,
			FirstSeen: u.FirstSeen.UTC().Format(dayTime), LastSeen: u.LastSeen.UTC().Format(dayTime)})
	}
	page := server.PageFor(p, "Admin", ui.NavAdmin)
	page.Flash = flashes[r.URL.Query().Get("done")]
	return server.Render(w, r, http.StatusOK, ui.AdminPage(page, v))
}

func adminUser(u store.User, licenses []store.License, p *auth.Principal) ui.AdminUser {
	au := ui.AdminUser{ID: strconv.FormatInt(u.ID, 10), Name: u.Name, Role: u.Role, Disabled: u.Disabled,
		Self: u.ID == p.UserID, Created: u.CreatedAt.UTC().Format(dayTime), Granted: "no licenses"}
	for _, l := range licenses {
		au.Grants = append(au.Grants, ui.AdminGrant{License: l.ID, Label: l.Label, Granted: contains(u.Licenses, l.ID)})
	}
	switch {
	case u.Role == string(auth.RoleAdmin):
		au.Granted = "every license (admin)"
	case len(u.Licenses) > 0:
		au.Granted = strings.Join(u.Licenses, ", ")
	}
	return au
}

func contains(sorted []string, s string) bool {
	for _, v := range sorted {
		if v == s {
			return true
		}
	}
	return false
}

func unavailable(err error) error {
	return httpx.Wrap(http.StatusServiceUnavailable, "the panel cannot read its database right now; try again", err)
}

// done answers a finished change: htmx follows HX-Redirect, a plain form
// the 303; both land on the admin page with its notice.
func done(w http.ResponseWriter, r *http.Request, action, anchor string) error {
	target := "/admin?done=" + action + "#" + anchor
	if server.IsHTMX(r) {
		w.Header().Set("HX-Redirect", target)
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
	return nil
}
