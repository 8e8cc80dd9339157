package hostile

import (
	"net/http"
	"net/url"
	"testing"
)

// TestHostile_HeldAlready pins what the review found holding: CSRF refused
// on a cross-origin POST (even for a granted license and an admin), path
// traversal refused in the files routes, another license's host pages
// refused, admin pages refused to an operator, and anonymous clients sent
// to the login page.
func TestHostile_HeldAlready(t *testing.T) {
	e := start(t)
	inst := "/hosts/other/instances/world1"
	evil := "http://evil.example"
	e.run(t, []probe{
		{name: "CSRF power", as: asOp, method: http.MethodPost, path: inst + "/power", form: url.Values{"action": {"stop"}},
			origin: evil, want: http.StatusForbidden, says: "cross-origin"},
		{name: "CSRF admin user add", as: asAdmin, method: http.MethodPost, path: "/admin/users",
			form: url.Values{"name": {"mallory"}, "role": {"admin"}, "password": {"long enough password"}}, origin: evil,
			want: http.StatusForbidden, says: "cross-origin"},
		{name: "CSRF logout", as: asOp, method: http.MethodPost, path: "/logout", origin: evil, want: http.StatusForbidden, says: "cross-origin"},
		{name: "traversal list", as: asOp, path: inst + "/files?path=../../etc", want: http.StatusBadRequest, says: "cannot go up"},
		{name: "traversal view", as: asOp, path: inst + "/files/view?path=..%2F..%2Fetc%2Fpasswd", want: http.StatusBadRequest, says: "cannot go up"},
		{name: "traversal download", as: asOp, path: inst + "/files/download?path=a/../../b", want: http.StatusBadRequest, says: "cannot go up"},
		{name: "traversal rename", as: asOp, method: http.MethodPost, path: inst + "/files/rename",
			form: url.Values{"from": {"a.txt"}, "to": {"../a.txt"}}, want: http.StatusBadRequest},
		{name: "traversal backslash", as: asOp, path: inst + "/files?path=..%5C..%5Cetc", want: http.StatusBadRequest, says: "use / between folders"},
		{name: "other host page", as: asOp, path: "/hosts/demo", want: http.StatusForbidden},
		{name: "other host, case changed", as: asOp, path: "/hosts/DEMO", want: http.StatusForbidden},
		{name: "other host, escaped", as: asOp, path: "/hosts/de%6Do", want: http.StatusForbidden},
		{name: "admin page", as: asOp, path: "/admin", want: http.StatusForbidden, says: "only admins"},
		{name: "anonymous host page", as: asAnon, path: "/hosts/other", want: http.StatusSeeOther},
		{name: "anonymous console stream", as: asAnon, path: inst + "/console/stream", want: http.StatusSeeOther},
		{name: "anonymous power", as: asAnon, method: http.MethodPost, path: inst + "/power", form: url.Values{"action": {"stop"}},
			want: http.StatusSeeOther},
	})
}
