package hostile

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/panel/server"
	"github.com/corrosion/corrosion/panel/store"
)

// demoReads are another customer's pages and streams, as an operator of
// Other would craft their URLs.
var demoReads = []string{
	"/hosts/demo",
	"/live/hosts/demo",
	"/hosts/demo/instances/world1",
	"/hosts/demo/instances/world1/console",
	"/hosts/demo/instances/world1/console/stream",
	"/hosts/demo/instances/world1/rcon",
	"/hosts/demo/instances/world1/files",
	"/hosts/demo/instances/world1/files/view?path=server.cfg",
	"/hosts/demo/instances/world1/files/download?path=server.cfg",
	"/hosts/demo/instances/world1/reach",
}

// TestHostile_OtherLicenseReadsRefusedAndAudited: an operator of Other
// reading Demo's host, instance, console stream, RCON and files pages is
// refused 403, and every refusal is in the audit log naming the operator,
// the request and the reason. The 403s held before; the audit rows were
// missing (issue 17 point 1).
func TestHostile_OtherLicenseReadsRefusedAndAudited(t *testing.T) {
	e := start(t)
	var probes []probe
	for _, path := range demoReads {
		probes = append(probes, probe{name: path, as: asOp, path: path, want: http.StatusForbidden, says: "no grant for license demo"})
	}
	e.run(t, probes)
	rows := e.audit(t, store.AuditFilter{Action: server.DeniedAction})
	seen := map[string]bool{}
	for _, r := range rows {
		if r.UserName != OpName || r.Result != store.AuditDenied || r.License != Demo || !strings.Contains(r.Detail, "no grant") {
			t.Errorf("denied row %+v", r)
		}
		seen[r.Target] = true
	}
	for _, path := range demoReads {
		u, _ := url.Parse(path)
		if !seen["GET "+u.Path] {
			t.Errorf("no denied row for GET %s", u.Path)
		}
	}
	// The operator may read the audit log of their own actions: the
	// refusals are theirs, so they see them too.
	status, body := e.Op.Get("/audit?action=denied")
	if status != http.StatusOK || !strings.Contains(body, "/hosts/demo/instances/world1/console/stream") {
		t.Errorf("the operator's audit page = %d, without their refusals", status)
	}
}

// TestHostile_OtherLicenseActionsRefusedAndAudited: the same operator's
// power, console, RCON and file actions on Demo are refused before they
// reach an agent, each audited under its own action (this held).
func TestHostile_OtherLicenseActionsRefusedAndAudited(t *testing.T) {
	e := start(t)
	inst := "/hosts/demo/instances/world1"
	actions := []struct{ path, action string }{
		{inst + "/power", "instance.power"},
		{inst + "/console/send", "instance.send"},
		{inst + "/rcon", "instance.rcon"},
		{inst + "/files/save", "files.save"},
		{inst + "/files/delete", "files.delete"},
		{inst + "/files/rename", "files.rename"},
		{inst + "/reach", "instance.reach"},
	}
	var probes []probe
	for _, a := range actions {
		probes = append(probes, probe{name: a.action, as: asOp, method: http.MethodPost, path: a.path,
			form: url.Values{"action": {"stop"}, "line": {"stop"}, "command": {"stop"}, "path": {"server.cfg"}, "content": {"x"}},
			want: http.StatusForbidden, says: "no grant for license demo"})
	}
	e.run(t, probes)
	for _, a := range actions {
		rows := e.audit(t, store.AuditFilter{Action: a.action})
		if len(rows) != 1 || rows[0].UserName != OpName || rows[0].Result != store.AuditDenied || rows[0].License != Demo {
			t.Errorf("%s: audit rows %+v", a.action, rows)
		}
	}
}

// TestHostile_DeniedFloodIsBounded: a script looping on a refused stream
// URL cannot grow the audit log faster than the per-operator budget of
// denied rows (30 at once, 30 a minute); the refusals themselves go on.
// The budget refills while the flood runs (one row per 2 s), so a flood
// slowed by a loaded machine may write one row more per 2 s it took.
func TestHostile_DeniedFloodIsBounded(t *testing.T) {
	e := start(t)
	began := time.Now()
	for i := range 200 {
		if status, _ := e.Op.Get("/hosts/demo/instances/world1/console/stream"); status != http.StatusForbidden {
			t.Fatalf("request %d = %d, want 403", i+1, status)
		}
	}
	budget := 30 + int(time.Since(began).Minutes()*30)
	if n := len(e.audit(t, store.AuditFilter{Action: server.DeniedAction})); n < 1 || n > budget {
		t.Fatalf("200 refusals wrote %d denied rows, want 1 to %d", n, budget)
	}
}
