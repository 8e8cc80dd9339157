package social_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/health"
	"github.com/corrosion/corrosion/internal/poll"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/httpx"
	"github.com/corrosion/corrosion/panel/paneltest"
	"github.com/corrosion/corrosion/panel/social"
)

// startSocialPanel is a test panel with the social feature and its
// collector on the panel's NATS.
func startSocialPanel(t *testing.T) *paneltest.Panel {
	t.Helper()
	return paneltest.Start(t, paneltest.Options{Features: func(d paneltest.Deps) []httpx.Feature {
		c := social.NewCollector(d.Logger)
		d.Go(func(ctx context.Context) {
			if err := c.Run(ctx, d.NC); err != nil {
				t.Errorf("collector: %v", err)
			}
		})
		return []httpx.Feature{social.New(social.Deps{Store: d.Store, Collector: c, Logger: d.Logger})}
	}})
}

// addSocialInstance records an instance as ingest would after a heartbeat.
func addSocialInstance(t *testing.T, p *paneltest.Panel, license, id, game string) {
	t.Helper()
	now := time.Now()
	if _, err := p.Store.Pool().Exec(context.Background(), `INSERT INTO panel_instances
		(license_id, instance_id, game, state, state_since, updated_at) VALUES ($1, $2, $3, 'running', $4, $4)`,
		license, id, game, now); err != nil {
		t.Fatal(err)
	}
}

// waitBody polls path until its body contains every want.
func waitBody(t *testing.T, c *paneltest.Client, path string, want ...string) string {
	t.Helper()
	var body string
	poll.Until(t, 30*time.Second, func() error {
		var status int
		status, body = c.Get(path)
		if status != 200 {
			return errorf("GET %s: %d %s", path, status, body)
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				return errorf("GET %s lacks %q", path, w)
			}
		}
		return nil
	})
	return body
}

// TestSocial_RealEtherNodes_UpThenDown: two real ether nodes publish health
// on the panel's NATS; the page shows the cluster healthy with its world
// instances, then node 11 killed (silent) and node 10 stopped (beacon) as
// down; an operator granted both nodes' hosts sees the cluster, one granted
// only one of them does not, nor does a viewer of another host.
func TestSocial_RealEtherNodes_UpThenDown(t *testing.T) {
	p := startSocialPanel(t)
	for _, l := range []string{"lic-a", "lic-b", "lic-z"} {
		p.AddLicense(t, l)
	}
	addSocialInstance(t, p, "lic-a", "ether10", "ether")
	addSocialInstance(t, p, "lic-a", "world10", "worldsrv")
	addSocialInstance(t, p, "lic-b", "world11", "worldsrv")
	admin := p.Client(t, "root", p.AddUser(t, "root", auth.RoleAdmin))
	op := p.Client(t, "op", p.AddUser(t, "op", auth.RoleOperator, "lic-a", "lic-b"))
	half := p.Client(t, "half", p.AddUser(t, "half", auth.RoleOperator, "lic-b"))
	stranger := p.Client(t, "stranger", p.AddUser(t, "stranger", auth.RoleViewer, "lic-z"))

	start := etherCluster(t, p.NATSURL, "social")
	n10, n11 := start(10, runAs("lic-a", "ether10")...), start(11, runAs("lic-b", "world11")...)
	n10.ConnectWorld()
	n11.ConnectWorld()
	body := waitBody(t, admin, "/social", `data-cluster="social"`, "All 2 nodes healthy",
		`href="/hosts/lic-a/instances/ether10"`, `href="/hosts/lic-b/instances/world11"`)
	for _, w := range []string{`data-node="10" data-state="up"`, `data-node="11" data-state="up"`, "Social health · Corrosion"} {
		if !strings.Contains(body, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	waitBody(t, op, "/social/live", `data-cluster="social"`, `href="/hosts/lic-a/instances/ether10"`,
		`href="/hosts/lic-b/instances/world11"`)
	for name, c := range map[string]*paneltest.Client{"an operator of lic-b only": half, "a viewer of lic-z": stranger} {
		if _, body := c.Get("/social"); strings.Contains(body, `data-cluster="social"`) || !strings.Contains(body, "No cluster runs on your hosts only") {
			t.Errorf("%s sees the cluster:\n%s", name, body)
		}
	}

	checkRealSnapshot(t, p)

	n11.Kill()
	waitBody(t, admin, "/social/live", `data-node="11" data-state="down"`, "node 11: down, silent since")
	n10.Stop()
	waitBody(t, admin, "/social/live", `data-node="10" data-state="stopped"`, "node 10: stopped at")
}

// checkRealSnapshot decodes a real node's snapshot with the decoder the
// collector uses: every field the page shows is there.
func checkRealSnapshot(t *testing.T, p *paneltest.Panel) {
	t.Helper()
	sub, err := p.NC.SubscribeSync("social.health.10")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	m, err := sub.NextMsg(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s, err := health.Decode(m.Subject, m.Data)
	if err != nil {
		t.Fatalf("a real snapshot refused: %v\n%s", err, m.Data)
	}
	if s.Version == "" || s.Instance == "" || s.Time.IsZero() || s.UptimeSeconds <= 0 || s.WorldLink != health.LinkUp ||
		!s.DBUp || !s.NATSConnected || !s.LoginLockOK() || len(s.Peers) != 1 || s.Peers[0] != 11 ||
		len(s.PMsDroppedBy) == 0 {
		t.Fatalf("real snapshot decoded as %+v\nfrom %s", s, m.Data)
	}
}

// TestSocial_PanelLosesNATS: while the panel's own NATS connection is down
// the page says so (nodes only look silent); once it is back, snapshots
// arrive again and the warning goes.
func TestSocial_PanelLosesNATS(t *testing.T) {
	p := startSocialPanel(t)
	admin := p.Client(t, "root", p.AddUser(t, "root", auth.RoleAdmin))
	publish := func() error {
		b, _ := json.Marshal(map[string]any{"node": 5, "cluster": "solo", "instance": "x", "time": time.Now(),
			"world_link": "up", "db_up": true, "nats_connected": true, "login_lock": "ok", "peers": []int{}})
		return p.NC.Publish("solo.health.5", b)
	}
	poll.Until(t, 30*time.Second, func() error {
		if err := publish(); err != nil {
			return err
		}
		_, body := admin.Get("/social/live")
		if !strings.Contains(body, "solo: <span data-verdict>its only node is healthy") || strings.Contains(body, "data-deaf") {
			return errorf("cluster solo not healthy yet")
		}
		return nil
	})
	p.NATS.Shutdown()
	waitBody(t, admin, "/social/live", "data-deaf", "not connected to NATS")
	p.NATS.Restart()
	poll.Until(t, 30*time.Second, func() error {
		_ = publish() // the test's own connection reconnects too
		_, body := admin.Get("/social/live")
		if strings.Contains(body, "data-deaf") {
			return errorf("still deaf")
		}
		return nil
	})
}
