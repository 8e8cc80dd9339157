package social_test

import (
	"strings"
	"testing"

	"github.com/corrosion/corrosion/panel/auth"
)

// TestSocial_Tenant_ANameAlikeSeesNothing is issue 17's cross-tenant leak:
// license demo's agent runs the real ether nodes 10 and 11 of cluster
// "ether"; an operator granted only license lic-x, whose agent merely
// reports an instance named ether10 of game ether, must see nothing of that
// cluster (before the fix nodes were matched to instances by the number at
// the end of their id, across all licenses, and lic-x saw demo's sessions,
// rates and versions). demo's operator sees it; a node run by no agent is
// shown to admins only, flagged.
func TestSocial_Tenant_ANameAlikeSeesNothing(t *testing.T) {
	p := startSocialPanel(t)
	for _, l := range []string{"demo", "lic-x"} {
		p.AddLicense(t, l)
	}
	addSocialInstance(t, p, "demo", "ether10", "ether")
	addSocialInstance(t, p, "demo", "ether11", "ether")
	addSocialInstance(t, p, "lic-x", "ether10", "ether")
	admin := p.Client(t, "root", p.AddUser(t, "root", auth.RoleAdmin))
	attacker := p.Client(t, "mallory", p.AddUser(t, "mallory", auth.RoleOperator, "lic-x"))
	owner := p.Client(t, "dora", p.AddUser(t, "dora", auth.RoleOperator, "demo"))

	start := etherCluster(t, p.NATSURL, "ether")
	n10, n11 := start(10, runAs("demo", "ether10")...), start(11, runAs("demo", "ether11")...)
	n10.ConnectWorld()
	n11.ConnectWorld()
	stray := etherCluster(t, p.NATSURL, "stray")(12) // run by hand: no agent told it anything
	stray.ConnectWorld()

	waitBody(t, admin, "/social/live", `data-cluster="ether"`, "All 2 nodes healthy", `data-cluster="stray"`)
	waitBody(t, owner, "/social/live", `data-cluster="ether"`, "All 2 nodes healthy",
		`href="/hosts/demo/instances/ether10"`, `href="/hosts/demo/instances/ether11"`)
	for _, path := range []string{"/social", "/social/live"} {
		_, body := attacker.Get(path)
		for _, leak := range []string{`data-cluster="ether"`, `data-node="10"`, "demo", "nodes healthy", `data-cluster="stray"`} {
			if strings.Contains(body, leak) {
				t.Errorf("the operator of lic-x sees %q on %s:\n%s", leak, path, body)
			}
		}
		if !strings.Contains(body, "No cluster runs on your hosts only") {
			t.Errorf("%s does not say why it is empty:\n%s", path, body)
		}
	}
	waitBody(t, admin, "/social/live", `data-no-agent`, "not run by an agent")
	if _, body := owner.Get("/social/live"); strings.Contains(body, `data-cluster="stray"`) {
		t.Error("demo's operator sees a node run by no agent")
	}
}
