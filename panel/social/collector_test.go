package social

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/ether/health"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// snap is a healthy snapshot of node n of cluster "c" at t.
func snap(n int, t time.Time, peers ...int) health.Snapshot {
	if peers == nil {
		peers = []int{}
	}
	return health.Snapshot{Node: n, Cluster: "c", Instance: fmt.Sprintf("proc%d", n), Time: t, WorldLink: health.LinkUp,
		DBUp: true, NATSConnected: true, LoginLock: "ok", Peers: peers, PMsDroppedBy: map[string]uint64{}}
}

func observe(t *testing.T, c *Collector, s health.Snapshot, at time.Time) {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Observe(fmt.Sprintf("%s.health.%d", s.Cluster, s.Node), b, at); err != nil {
		t.Fatal(err)
	}
}

func nodeAt(t *testing.T, c *Collector, node int, now time.Time) NodeStatus {
	t.Helper()
	for _, n := range c.Nodes(now) {
		if n.Node == node {
			return n
		}
	}
	t.Fatalf("node %d not tracked", node)
	return NodeStatus{}
}

func TestCollector_IntervalRatesAndDownRule(t *testing.T) {
	c := NewCollector(nil)
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	s := snap(10, t0)
	observe(t, c, s, t0)
	if n := nodeAt(t, c, 10, t0); n.Interval != DefaultInterval || n.RatesKnown || n.Down {
		t.Fatalf("first snapshot: %+v", n)
	}
	s.Time, s.PMsDelivered, s.PMsDropped, s.LoginChecksAllowed = t0.Add(2*time.Second), 30, 10, 4
	observe(t, c, s, t0.Add(2*time.Second))
	n := nodeAt(t, c, 10, t0.Add(2*time.Second))
	if n.Interval != 2*time.Second || !n.RatesKnown || n.PMRate != 20 || n.LoginRate != 2 {
		t.Fatalf("second snapshot: interval %v rates %v %v/%v", n.Interval, n.RatesKnown, n.PMRate, n.LoginRate)
	}
	// A missed publish lengthens a gap but never the interval.
	s.Time = t0.Add(6 * time.Second)
	observe(t, c, s, t0.Add(6*time.Second))
	if n := nodeAt(t, c, 10, t0.Add(6*time.Second)); n.Interval != 2*time.Second || n.PMRate != 0 {
		t.Fatalf("after a gap: %+v", n)
	}
	if n := nodeAt(t, c, 10, t0.Add(12*time.Second)); n.Down {
		t.Fatal("down after exactly 3 intervals of silence")
	}
	n = nodeAt(t, c, 10, t0.Add(12*time.Second+time.Millisecond))
	if !n.Down || n.Stopped || !n.DownSince.Equal(t0.Add(6*time.Second)) {
		t.Fatalf("silent node: %+v", n)
	}
	// A restart (new process, counters from zero) gives no rate, not a negative one.
	s = snap(10, t0.Add(20*time.Second))
	s.Instance = "proc10-b"
	observe(t, c, s, t0.Add(20*time.Second))
	if n := nodeAt(t, c, 10, t0.Add(20*time.Second)); n.Down || n.RatesKnown {
		t.Fatalf("after restart: %+v", n)
	}
}

func TestCollector_DownBeaconOnlyForTheCurrentProcess(t *testing.T) {
	c := NewCollector(nil)
	t0 := time.Now()
	observe(t, c, snap(11, t0), t0)
	if err := c.Observe("c.node.11.down", []byte(`{"node":11,"instance":"old","leaving":true}`), t0); err != nil {
		t.Fatal(err)
	}
	if nodeAt(t, c, 11, t0).Down {
		t.Fatal("a stale process's beacon marked the node down")
	}
	if err := c.Observe("c.node.11.down", []byte(`{"node":11,"instance":"proc11","leaving":true}`), t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if n := nodeAt(t, c, 11, t0.Add(time.Second)); !n.Down || !n.Stopped {
		t.Fatalf("beacon: %+v", n)
	}
	for _, bad := range []string{`{"node":12,"leaving":true}`, `{"node":11}`, `[`} {
		if err := c.Observe("c.node.11.down", []byte(bad), t0); err == nil {
			t.Errorf("beacon %s accepted", bad)
		}
	}
	if c.Refused() != 3 {
		t.Fatalf("refused %d, want 3", c.Refused())
	}
}

// A leaving process's last snapshot can be processed after its clean-stop
// beacon (ether publishes them concurrently, and they arrive on separate
// subscriptions): it must not bring the node back up. A new process does.
func TestCollector_SnapshotAfterTheBeaconKeepsTheNodeStopped(t *testing.T) {
	c := NewCollector(nil)
	t0 := time.Now()
	observe(t, c, snap(10, t0), t0)
	if err := c.Observe("c.node.10.down", []byte(`{"node":10,"instance":"proc10","leaving":true}`), t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	observe(t, c, snap(10, t0.Add(time.Second)), t0.Add(1100*time.Millisecond))
	if n := nodeAt(t, c, 10, t0.Add(2*time.Second)); !n.Down || !n.Stopped || !n.DownSince.Equal(t0.Add(time.Second)) {
		t.Fatalf("a late snapshot of the stopped process: %+v", n)
	}
	restarted := snap(10, t0.Add(3*time.Second))
	restarted.Instance = "proc10-b"
	observe(t, c, restarted, t0.Add(3*time.Second))
	if n := nodeAt(t, c, 10, t0.Add(3*time.Second)); n.Down || n.Stopped {
		t.Fatalf("after a restart: %+v", n)
	}
}

func TestCollector_BoundedAndForgets(t *testing.T) {
	c := NewCollector(nil)
	t0 := time.Now()
	for i := range MaxNodes {
		s := snap(1+i%255, t0)
		s.Cluster = fmt.Sprintf("c%d", i/255)
		observe(t, c, s, t0)
	}
	s := snap(1, t0)
	s.Cluster = "onemore"
	b, _ := json.Marshal(s)
	if err := c.Observe("onemore.health.1", b, t0); err == nil || !strings.Contains(err.Error(), "too many") {
		t.Fatalf("node %d accepted: %v", MaxNodes+1, err)
	}
	if err := c.Observe("onemore.health.1", b, t0.Add(ForgetAfter+time.Second)); err != nil {
		t.Fatalf("after the others were forgotten: %v", err)
	}
	if got := len(c.Nodes(t0.Add(ForgetAfter + time.Second))); got != 1 {
		t.Fatalf("%d nodes tracked, want 1", got)
	}
}

func TestBuild_VerdictsAndVisibility(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 3, 0, 0, time.UTC)
	c := NewCollector(nil)
	// Node 10 runs as lic-a's ether10; node 11 is the sidecar world11 of
	// lic-b spawned, so it runs as world11.
	observe(t, c, withAgent(snap(10, t0, 11), "lic-a", "ether10"), t0)
	observe(t, c, withAgent(snap(11, t0, 10), "lic-b", "world11"), t0)
	insts := []store.SocialInstance{{License: "lic-a", Instance: "world10", Game: "worldsrv", State: "running"},
		{License: "lic-a", Instance: "ether10", Game: "ether", State: "running"},
		{License: "lic-b", Instance: "world11", Game: "worldsrv", State: "running"},
		{License: "lic-c", Instance: "ether10", Game: "ether", State: "running"}}
	admin := &auth.Principal{Name: "root", Role: auth.RoleAdmin}
	v := Build(c.Nodes(t0), insts, admin, t0)
	if len(v.Clusters) != 1 || v.Clusters[0].Verdict != "All 2 nodes healthy" || v.Clusters[0].Severity != ui.SocialOK {
		t.Fatalf("healthy: %+v", v.Clusters)
	}
	if got := v.Clusters[0].Nodes[0].Instances; len(got) != 1 || got[0].Name != "ether10" || got[0].Host != "lic-a" ||
		got[0].Href != "/hosts/lic-a/instances/ether10" {
		t.Fatalf("node 10's instances: %+v", got)
	}
	down := withAgent(snap(11, t0.Add(time.Second), 10), "lic-b", "world11")
	down.WorldLink = health.LinkDown
	observe(t, c, down, t0.Add(time.Second))
	v = Build(c.Nodes(t0.Add(time.Second)), insts, admin, t0.Add(time.Second))
	if got := v.Clusters[0].Verdict; got != "node 11: world link down since 12:03:01 UTC" {
		t.Fatalf("verdict %q", got)
	}
	stopped := append([]store.SocialInstance(nil), insts...)
	stopped[2].State = "stopped"
	v = Build(c.Nodes(t0.Add(time.Second)), stopped, admin, t0.Add(time.Second))
	// Stopped on purpose is not broken (issue 17 point 15): said as
	// stopped, by whom when the audit log knows.
	if got := v.Clusters[0]; got.Verdict != "node 11: world world11 stopped" || got.Severity != ui.SocialStopped {
		t.Fatalf("verdict with the world stopped: %q (%s)", got.Verdict, got.Severity)
	}
	stopped[2].StoppedBy, stopped[2].StoppedAt = "ada", t0.Add(-time.Minute)
	v = Build(c.Nodes(t0.Add(time.Second)), stopped, admin, t0.Add(time.Second))
	if got := v.Clusters[0]; got.Verdict != "node 11: world world11 stopped by ada at 12:02:00 UTC" || got.Severity != ui.SocialStopped ||
		!got.Nodes[1].WorldStopped || got.Nodes[1].WorldLink != "world11 stopped by ada at 12:02:00 UTC" {
		t.Fatalf("verdict with the world stopped by ada: %q (%s), node %+v", got.Verdict, got.Severity, got.Nodes[1])
	}
	stopped[2].State = "crashed"
	v = Build(c.Nodes(t0.Add(time.Second)), stopped, admin, t0.Add(time.Second))
	if got := v.Clusters[0]; got.Verdict != "node 11: world link down since 12:03:01 UTC (world11 is crashed)" || got.Severity != ui.SocialBad {
		t.Fatalf("verdict with the world crashed: %q (%s)", got.Verdict, got.Severity)
	}
	later := t0.Add(time.Minute)
	v = Build(c.Nodes(later), insts, admin, later)
	if got := v.Clusters[0]; got.Severity != ui.SocialBad || !strings.HasPrefix(got.Verdict, "node 10: down, silent since 12:03:00 UTC") {
		t.Fatalf("silent nodes: %q", got.Verdict)
	}
	both := &auth.Principal{Name: "op", Role: auth.RoleOperator, Licenses: []string{"lic-a", "lic-b"}}
	if v := Build(c.Nodes(t0), insts, both, t0); len(v.Clusters) != 1 || len(v.Clusters[0].Nodes) != 2 || v.Rule == "" {
		t.Fatalf("operator of lic-a and lic-b: %+v", v.Clusters)
	}
	// One license of the two, or one with an instance named like a node of
	// the cluster (lic-c's ether10), sees nothing of it.
	for _, lic := range []string{"lic-b", "lic-c", "lic-z"} {
		p := &auth.Principal{Name: "x", Role: auth.RoleOperator, Licenses: []string{lic}}
		if v := Build(c.Nodes(t0), insts, p, t0); len(v.Clusters) != 0 || !v.Hidden {
			t.Fatalf("operator of %s sees %+v", lic, v.Clusters)
		}
	}
}

// TestBuild_NodeNotRunByAnAgent: a node reporting no license is shown to
// admins, flagged, and hides its cluster from everyone else.
func TestBuild_NodeNotRunByAnAgent(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 3, 0, 0, time.UTC)
	c := NewCollector(nil)
	observe(t, c, withAgent(snap(10, t0, 11), "lic-a", "ether10"), t0)
	observe(t, c, snap(11, t0, 10), t0)
	admin := &auth.Principal{Name: "root", Role: auth.RoleAdmin}
	v := Build(c.Nodes(t0), nil, admin, t0)
	if len(v.Clusters) != 1 || v.Clusters[0].Nodes[0].NoAgent || !v.Clusters[0].Nodes[1].NoAgent {
		t.Fatalf("admin: %+v", v.Clusters)
	}
	op := &auth.Principal{Name: "op", Role: auth.RoleOperator, Licenses: []string{"lic-a"}}
	if v := Build(c.Nodes(t0), nil, op, t0); len(v.Clusters) != 0 || !v.Hidden {
		t.Fatalf("operator of lic-a sees %+v", v.Clusters)
	}
}

func withAgent(s health.Snapshot, license, instance string) health.Snapshot {
	s.Agent = &health.Agent{License: license, Instance: instance}
	return s
}

func TestIssues_PeersDatabaseLockBacklog(t *testing.T) {
	t0 := time.Now()
	a, b := snap(10, t0), snap(11, t0, 10)
	a.DBUp, a.LoginLock, a.DBPendingWrites = false, "unavailable: not connected to NATS", PendingWritesWarn
	members := []NodeStatus{{Cluster: "c", Node: 10, Snap: a}, {Cluster: "c", Node: 11, Snap: b}}
	var got []string
	for _, is := range Issues(members, nil) {
		got = append(got, string(is.Severity)+": "+is.Text)
	}
	want := []string{"bad: node 10: database unreachable", "bad: node 10: login lock unavailable: not connected to NATS",
		"warn: node 10: 100 writes waiting for the database", "warn: node 10 does not see node 11"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("issues:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestBuild_WorldReportedThroughItsSidecar: node 10 runs as lic-a's ether10
// and reports its world (WorldInfo) as lic-a's world10: the page names both,
// says the world is stopped, and the world's license counts for visibility.
func TestBuild_WorldReportedThroughItsSidecar(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 3, 0, 0, time.UTC)
	c := NewCollector(nil)
	s := withAgent(snap(10, t0), "lic-a", "ether10")
	s.WorldLink = health.LinkDown
	s.World = &health.World{License: "lic-a", Instance: "world10", PublicURL: "http://h:8080/client?world=1"}
	observe(t, c, s, t0)
	insts := []store.SocialInstance{{License: "lic-a", Instance: "ether10", Game: "ether", State: "running"},
		{License: "lic-a", Instance: "world10", Game: "worldsrv", State: "stopped", StoppedBy: "ada", StoppedAt: t0}}
	op := &auth.Principal{Name: "op", Role: auth.RoleOperator, Licenses: []string{"lic-a"}}
	v := Build(c.Nodes(t0), insts, op, t0)
	if len(v.Clusters) != 1 || v.Clusters[0].Verdict != "node 10: world world10 stopped by ada at 12:03:00 UTC" ||
		len(v.Clusters[0].Nodes[0].Instances) != 2 || v.Clusters[0].Nodes[0].Instances[1].Name != "world10" {
		t.Fatalf("clusters %+v", v.Clusters)
	}
	if got := c.PublicURL("lic-a", "world10"); got != "http://h:8080/client?world=1" {
		t.Fatalf("PublicURL = %q", got)
	}
	if got := c.PublicURL("lic-b", "world10"); got != "" {
		t.Fatalf("PublicURL of another license's world10 = %q", got)
	}
	s.World.License = "lic-b"
	observe(t, c, s, t0)
	if v := Build(c.Nodes(t0), insts, op, t0); len(v.Clusters) != 0 {
		t.Fatalf("a node whose world runs on lic-b is shown to lic-a's operator: %+v", v.Clusters)
	}
}
