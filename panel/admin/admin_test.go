package admin_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/panel/admin"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// hostProbe is a route scoped by {license} as every fleet page is: the
// server's grant check decides who reaches it.
type hostProbe struct{}

func (hostProbe) Routes() []httpx.Route {
	return []httpx.Route{{Pattern: "GET /probe/{license}", Need: httpx.View, Audit: "host.probe",
		Handler: func(w http.ResponseWriter, r *http.Request, p *auth.Principal) error {
			_, err := w.Write([]byte("host " + r.PathValue("license")))
			return err
		}}}
}

func startAdminPanel(t *testing.T) *paneltest.Panel {
	t.Helper()
	return paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		return []httpx.Feature{admin.New(admin.Deps{Store: d.Store, Hasher: d.Sessions.Hasher(), Logger: d.Logger}), hostProbe{}}
	}})
}

func userID(t *testing.T, p *paneltest.Panel, name string) string {
	t.Helper()
	u, err := p.Store.UserByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(u.ID)
}

// post posts a form and checks the status (and that the body holds want).
func post(t *testing.T, c *paneltest.Client, path string, form url.Values, status int, want string) {
	t.Helper()
	got, body := c.PostForm(path, form)
	if got != status || !strings.Contains(body, want) {
		t.Fatalf("POST %s %v: %d %q, want %d with %q", path, form, got, body, status, want)
	}
}

// lastAudit is the newest audit row of an action.
func lastAudit(t *testing.T, p *paneltest.Panel, action string) store.AuditEntry {
	t.Helper()
	rows, err := p.Store.Audit(context.Background(), store.AuditFilter{Action: action, Limit: 1})
	if err != nil || len(rows) == 0 {
		t.Fatalf("no audit row for %s: %v", action, err)
	}
	return rows[0]
}

func TestAdmin_AddOperatorGrantLicenseTheySeeIt(t *testing.T) {
	p := startAdminPanel(t)
	root := p.Client(t, "root", p.AddUser(t, "root", auth.RoleAdmin))
	post(t, root, "/admin/licenses", url.Values{"id": {"lic-a"}, "label": {"rack 1"}}, http.StatusSeeOther, "")
	if e := lastAudit(t, p, admin.ActionLicenseAdd); e.Result != store.AuditOK || e.Target != "lic-a" || e.UserName != "root" {
		t.Fatalf("license.add row %+v", e)
	}
	post(t, root, "/admin/users", url.Values{"name": {"bob"}, "role": {"operator"}, "password": {"correct horse battery"}},
		http.StatusSeeOther, "")
	bob := p.Client(t, "bob", "correct horse battery")
	if status, _ := bob.Get("/probe/lic-a"); status != http.StatusForbidden {
		t.Fatalf("bob before the grant: %d, want 403", status)
	}
	id := userID(t, p, "bob")
	post(t, root, "/admin/users/"+id+"/grants", url.Values{"license": {"lic-a"}}, http.StatusSeeOther, "")
	if status, body := bob.Get("/probe/lic-a"); status != http.StatusOK || body != "host lic-a" {
		t.Fatalf("bob after the grant: %d %q", status, body)
	}
	if e := lastAudit(t, p, admin.ActionGrantSet); e.Target != "bob: lic-a" || e.Result != store.AuditOK {
		t.Fatalf("grant.set row %+v", e)
	}
	if status, _ := root.Get("/probe/lic-a"); status != http.StatusOK {
		t.Fatalf("root on lic-a: %d", status)
	}
	if _, body := bob.Get("/audit?user=root"); !strings.Contains(body, `<td class="mono">host.probe</td>`) || strings.Contains(body, `<td class="mono">user.add</td>`) {
		t.Fatalf("bob's audit page should show root's row on lic-a and not root's user.add:\n%s", body)
	}
	if _, body := bob.Get("/audit?result=denied"); !strings.Contains(body, `data-result="denied"`) || !strings.Contains(body, "no grant for license lic-a") {
		t.Fatalf("bob's own denied attempt is not on his audit page:\n%s", body)
	}

	post(t, root, "/admin/users/"+id+"/role", url.Values{"role": {"viewer"}}, http.StatusSeeOther, "")
	if e := lastAudit(t, p, admin.ActionUserRole); e.Target != "bob: operator → viewer" {
		t.Fatalf("user.role row %+v", e)
	}
	post(t, root, "/admin/users/"+id+"/disabled", url.Values{"disabled": {"true"}}, http.StatusSeeOther, "")
	if status, _ := bob.Get("/probe/lic-a"); status != http.StatusSeeOther {
		t.Fatalf("disabled bob: %d, want the login redirect", status)
	}
	post(t, root, "/admin/users/"+id+"/disabled", url.Values{"disabled": {"false"}}, http.StatusSeeOther, "")
	post(t, root, "/admin/users/"+id+"/password", url.Values{"password": {"another long password"}}, http.StatusSeeOther, "")
	bob = p.Client(t, "bob", "another long password")
	if status, _ := bob.Get("/probe/lic-a"); status != http.StatusOK {
		t.Fatalf("bob with the new password: %d", status)
	}
	if status, body := root.Get("/admin?done=user.password"); status != http.StatusOK || !strings.Contains(body, "Password set") ||
		!strings.Contains(body, `data-user="bob"`) || !strings.Contains(body, `data-license="lic-a"`) {
		t.Fatalf("admin page: %d\n%s", status, body)
	}
}

func TestAdmin_RefusalsInWords(t *testing.T) {
	p := startAdminPanel(t)
	root := p.Client(t, "root", p.AddUser(t, "root", auth.RoleAdmin))
	p.AddLicense(t, "lic-a")
	self := "/admin/users/" + userID(t, p, "root")
	cases := []struct {
		name, path string
		form       url.Values
		status     int
		want       string
	}{
		{"bad license id", "/admin/licenses", url.Values{"id": {"no spaces"}}, 400, "1 to 64 letters"},
		{"duplicate license", "/admin/licenses", url.Values{"id": {"lic-a"}}, 409, "already exists"},
		{"long label", "/admin/licenses", url.Values{"id": {"lic-b"}, "label": {strings.Repeat("x", 201)}}, 400, "at most 200"},
		{"short password", "/admin/users", url.Values{"name": {"eve"}, "role": {"viewer"}, "password": {"short"}}, 400, "at least"},
		{"bad role", "/admin/users", url.Values{"name": {"eve"}, "role": {"god"}, "password": {"long enough password"}}, 400, "not admin, operator or viewer"},
		{"no name", "/admin/users", url.Values{"role": {"viewer"}, "password": {"long enough password"}}, 400, "needs a name"},
		{"taken name", "/admin/users", url.Values{"name": {"root"}, "role": {"viewer"}, "password": {"long enough password"}}, 409, "already exists"},
		{"demote oneself", self + "/role", url.Values{"role": {"viewer"}}, 409, "your own account"},
		{"disable oneself", self + "/disabled", url.Values{"disabled": {"true"}}, 409, "your own account"},
		{"unknown user", "/admin/users/999999/role", url.Values{"role": {"viewer"}}, 404, "does not exist"},
		{"grant unknown license", self + "/grants", url.Values{"license": {"nope"}}, 404, "does not exist"},
		{"disable unknown license", "/admin/licenses/nope/disabled", url.Values{"disabled": {"true"}}, 404, "does not exist"},
		{"disabled neither", "/admin/licenses/lic-a/disabled", url.Values{"disabled": {"maybe"}}, 400, "true or false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { post(t, root, c.path, c.form, c.status, c.want) })
	}
	rows, err := p.Store.Audit(context.Background(), store.AuditFilter{Action: admin.ActionUserRole, User: "root", Result: store.AuditError})
	if err != nil || len(rows) != 2 || rows[1].Target != "root" || !strings.Contains(rows[1].Detail, "your own account") {
		t.Fatalf("refused changes are audited as errors naming their target: %+v %v", rows, err)
	}
	// htmx: the change answers with HX-Redirect, a refusal with its words.
	req := root.NewPost("/admin/licenses", url.Values{"id": {"lic-h"}})
	req.Header.Set("HX-Request", "true")
	resp := root.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("HX-Redirect") != "/admin?done=license.add#licenses" {
		t.Fatalf("htmx add: %d %q", resp.StatusCode, resp.Header.Get("HX-Redirect"))
	}
}

// TestAdmin_NonAdminsRefusedOnEveryRoute: operators and viewers get 403 on
// every /admin route, GET and POST, and each audited attempt is a denied
// row.
func TestAdmin_NonAdminsRefusedOnEveryRoute(t *testing.T) {
	p := startAdminPanel(t)
	p.AddLicense(t, "lic-a")
	op := p.Client(t, "op", p.AddUser(t, "op", auth.RoleOperator, "lic-a"))
	viewer := p.Client(t, "viewer", p.AddUser(t, "viewer", auth.RoleViewer, "lic-a"))
	id := userID(t, p, "op")
	routes := admin.New(admin.Deps{}).Routes()
	n := 0
	for _, rt := range routes {
		if rt.Need != httpx.Admin {
			continue
		}
		method, path, _ := strings.Cut(rt.Pattern, " ")
		path = strings.NewReplacer("{user}", id, "{license}", "lic-a").Replace(path)
		for _, c := range []*paneltest.Client{op, viewer} {
			var status int
			var body string
			if method == http.MethodGet {
				status, body = c.Get(path)
			} else {
				status, body = c.PostForm(path, url.Values{"role": {"admin"}, "disabled": {"true"}, "id": {"lic-x"},
					"name": {"mallory"}, "password": {"long enough password"}, "license": {"lic-a"}})
			}
			if status != http.StatusForbidden || !strings.Contains(body, "only admins") {
				t.Errorf("%s %s: %d %q, want 403", method, path, status, body)
			}
			n++
		}
	}
	if n < 18 {
		t.Fatalf("only %d requests tried", n)
	}
	denied, err := p.Store.Audit(context.Background(), store.AuditFilter{Result: store.AuditDenied, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(denied) != n { // every refusal: the POSTs under their action, the GETs as "denied"
		t.Fatalf("%d denied rows, want %d", len(denied), n)
	}
	u, _ := p.Store.UserByName(context.Background(), "op")
	if u.Role != "operator" {
		t.Fatal("a refused role change happened")
	}
	if _, err := p.Store.UserByName(context.Background(), "mallory"); err == nil {
		t.Fatal("a refused user add happened")
	}
}
