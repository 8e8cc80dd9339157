package hostile

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/ether/health"
	"github.com/corrosion/corrosion/internal/poll"
)

// publishHealth publishes an ether node's health snapshot, as the node (or
// anything else on NATS) would.
func publishHealth(t *testing.T, e *env, cluster string, node int, agent *health.Agent) {
	t.Helper()
	s := health.Snapshot{Node: node, Cluster: cluster, Instance: "proc", Version: "test", Time: time.Now(),
		WorldLink: health.LinkUp, Sessions: 7, DBUp: true, NATSConnected: true, Peers: []int{}, LoginLock: health.LockOK,
		Agent: agent}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.P.NC.Publish(health.Subject(cluster, node), b); err != nil {
		t.Fatal(err)
	}
}

// Social health is scoped by what the nodes report, never by a name
// (issue 17 point 4): Demo's ether cluster (nodes 10 and 11, run by Demo's
// agent) is invisible to the operator of Other — even when Other's agent
// reports an instance named ether10 of game ether (the old name match), and
// even when a node of Other (or one claiming to be) joins the cluster: an
// operator sees a cluster only when holding every license its nodes report.
func TestHostile_SocialHealthIsScopedByWhatNodesReport(t *testing.T) {
	e := start(t, withIngest(t))
	hb := rogueHeartbeat(time.Now())
	hb.Host.CPUPercent, hb.Host.MemUsedMB, hb.Host.Disks = nil, nil, nil
	hb.Instances = []wire.InstanceReport{{ID: "ether10", Game: "ether", State: wire.StateRunning, PID: 77}}
	publishAs(t, e, wire.HeartbeatSubject(Other), hb) // a name alike on Other's host
	social := func(c interface{ Get(string) (int, string) }) string { _, b := c.Get("/social"); return b }
	publishAll := func() {
		publishHealth(t, e, "ether", 10, &health.Agent{License: Demo, Instance: "ether10"})
		publishHealth(t, e, "ether", 11, &health.Agent{License: Demo, Instance: "ether11"})
	}
	poll.True(t, 15*time.Second, "the admin sees Demo's cluster", func() bool {
		publishAll()
		return strings.Contains(social(e.Admin), `data-cluster="ether"`)
	})
	if b := social(e.Op); strings.Contains(b, `data-cluster="ether"`) || strings.Contains(b, "ether11") {
		t.Fatalf("the operator of %s sees %s's ether cluster (a name alike on their host)", Other, Demo)
	}
	// A node run (or claimed) by Other joins the cluster: still Demo's too.
	publishHealth(t, e, "ether", 12, &health.Agent{License: Other, Instance: "ether10"})
	poll.True(t, 15*time.Second, "the admin sees node 12", func() bool {
		publishAll()
		return strings.Contains(social(e.Admin), `data-node="12"`)
	})
	if b := social(e.Op); strings.Contains(b, `data-cluster="ether"`) || strings.Contains(b, `data-node="10"`) {
		t.Fatalf("the operator of %s sees a cluster that also runs on %s", Other, Demo)
	}
	// And the page is not merely empty for them: their own cluster shows.
	poll.True(t, 15*time.Second, "the operator sees their own cluster", func() bool {
		publishHealth(t, e, "mine", 20, &health.Agent{License: Other, Instance: "ether20"})
		return strings.Contains(social(e.Op), `data-cluster="mine"`)
	})
}
