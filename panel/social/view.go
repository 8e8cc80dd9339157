package social

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corrosion/corrosion/ether/health"
	"github.com/corrosion/corrosion/panel/auth"
	"github.com/corrosion/corrosion/panel/store"
	"github.com/corrosion/corrosion/web/ui"
)

// PendingWritesWarn is the queue of database writes on one node above which
// the cluster is shown as degraded.
const PendingWritesWarn = 100

// VisibilityRule is the rule a non-admin sees on the page.
const VisibilityRule = "you see the clusters with a node on a host you have a grant for"

// NodeOf is the mapping of agent instances to ether nodes: an instance of
// game ether or worldsrv whose id ends in the node's number (ether10 and
// world10 are node 10). An id with no trailing number matches no node.
func NodeOf(instance string) (int, bool) {
	i := len(instance)
	for i > 0 && instance[i-1] >= '0' && instance[i-1] <= '9' {
		i--
	}
	n, err := strconv.Atoi(instance[i:])
	if err != nil || n < 1 || n > 255 || instance[i] == '0' {
		return 0, false
	}
	return n, true
}

// Build turns the collector's nodes and the fleet's ether and world
// instances into the page for p at now. An admin sees every cluster; anyone
// else sees a cluster when at least one of its nodes matches an instance
// on a license they can view (a friends list spans the whole cluster, so
// they see all its nodes), with the instances of other licenses counted,
// not named.
func Build(nodes []NodeStatus, insts []store.SocialInstance, p *auth.Principal, now time.Time) ui.SocialView {
	byNode := make(map[int][]store.SocialInstance)
	for _, si := range insts {
		if n, ok := NodeOf(si.Instance); ok {
			byNode[n] = append(byNode[n], si)
		}
	}
	clusters := make(map[string][]NodeStatus)
	for _, n := range nodes {
		clusters[n.Cluster] = append(clusters[n.Cluster], n)
	}
	v := ui.SocialView{Updated: clock(now)}
	if !p.IsAdmin() {
		v.Rule = VisibilityRule
	}
	for _, name := range slices.Sorted(maps.Keys(clusters)) {
		members := clusters[name]
		if !p.IsAdmin() && !visible(members, byNode, p) {
			v.Hidden = true
			continue
		}
		v.Clusters = append(v.Clusters, buildCluster(name, members, byNode, p, now))
	}
	slices.SortStableFunc(v.Clusters, func(a, b ui.SocialCluster) int { return rank(b.Severity) - rank(a.Severity) })
	return v
}

func visible(members []NodeStatus, byNode map[int][]store.SocialInstance, p *auth.Principal) bool {
	for _, n := range members {
		for _, si := range byNode[n.Node] {
			if p.CanView(si.License) {
				return true
			}
		}
	}
	return false
}

func rank(s ui.SocialSeverity) int {
	switch s {
	case ui.SocialBad:
		return 2
	case ui.SocialWarn:
		return 1
	}
	return 0
}

func buildCluster(name string, members []NodeStatus, byNode map[int][]store.SocialInstance, p *auth.Principal, now time.Time) ui.SocialCluster {
	c := ui.SocialCluster{Name: name, Issues: Issues(members, stoppedWorlds(members, byNode, p))}
	for _, n := range members {
		c.Nodes = append(c.Nodes, buildNode(n, byNode[n.Node], p, now))
	}
	c.Severity, c.Verdict = Verdict(len(members), c.Issues)
	return c
}

// Verdict sums a cluster up in one line: "All 2 nodes healthy", or its
// worst issue (and how many more there are).
func Verdict(nodes int, issues []ui.SocialIssue) (ui.SocialSeverity, string) {
	if len(issues) == 0 {
		if nodes == 1 {
			return ui.SocialOK, "its only node is healthy"
		}
		return ui.SocialOK, fmt.Sprintf("All %d nodes healthy", nodes)
	}
	worst := issues[0]
	for _, is := range issues[1:] {
		if rank(is.Severity) > rank(worst.Severity) {
			worst = is
		}
	}
	text := worst.Text
	if more := len(issues) - 1; more > 0 {
		text += fmt.Sprintf(" (+%d more)", more)
	}
	return worst.Severity, text
}

// stoppedWorlds names, per node, the world instances the operator can see
// that are not running ("world11 is stopped"): the likely reason for a
// world link that is down.
func stoppedWorlds(members []NodeStatus, byNode map[int][]store.SocialInstance, p *auth.Principal) map[int]string {
	out := make(map[int]string)
	for _, n := range members {
		var names []string
		for _, si := range byNode[n.Node] {
			if si.Game == "worldsrv" && si.State != "running" && p.CanView(si.License) {
				names = append(names, si.Instance+" is "+si.State)
			}
		}
		if len(names) > 0 {
			out[n.Node] = strings.Join(names, ", ")
		}
	}
	return out
}

// Issues lists what is wrong in a cluster, node by node: down nodes, world
// links (with why, when worlds names a stopped world instance of the node),
// database, NATS, the login lock, write backlogs and nodes that do not see
// each other.
func Issues(members []NodeStatus, worlds map[int]string) []ui.SocialIssue {
	var out []ui.SocialIssue
	add := func(sev ui.SocialSeverity, format string, a ...any) {
		out = append(out, ui.SocialIssue{Severity: sev, Text: fmt.Sprintf(format, a...)})
	}
	up := make(map[int]bool)
	for _, n := range members {
		up[n.Node] = !n.Down
	}
	for _, n := range members {
		s := n.Snap
		switch {
		case n.Stopped:
			add(ui.SocialBad, "node %d: stopped at %s", n.Node, clock(n.DownSince))
			continue
		case n.Down:
			add(ui.SocialBad, "node %d: down, silent since %s", n.Node, clock(n.DownSince))
			continue
		}
		if s.WorldLink != health.LinkUp && worlds[n.Node] != "" {
			add(ui.SocialBad, "node %d: world link down since %s (%s)", n.Node, clock(n.LinkDownSince), worlds[n.Node])
		} else if s.WorldLink != health.LinkUp {
			add(ui.SocialBad, "node %d: world link down since %s", n.Node, clock(n.LinkDownSince))
		}
		if !s.DBUp {
			add(ui.SocialBad, "node %d: database unreachable", n.Node)
		}
		if !s.NATSConnected {
			add(ui.SocialBad, "node %d: not connected to NATS", n.Node)
		}
		if !s.LoginLockOK() {
			add(ui.SocialBad, "node %d: login lock %s", n.Node, s.LoginLock)
		}
		if s.DBPendingWrites >= PendingWritesWarn {
			add(ui.SocialWarn, "node %d: %d writes waiting for the database", n.Node, s.DBPendingWrites)
		}
		for _, other := range members {
			if other.Node != n.Node && up[other.Node] && !slices.Contains(s.Peers, other.Node) {
				add(ui.SocialWarn, "node %d does not see node %d", n.Node, other.Node)
			}
		}
	}
	return out
}

func buildNode(n NodeStatus, insts []store.SocialInstance, p *auth.Principal, now time.Time) ui.SocialNode {
	s := n.Snap
	v := ui.SocialNode{Node: n.Node, Severity: ui.SocialOK, State: "up", Version: s.Version,
		Uptime: duration(time.Duration(s.UptimeSeconds * float64(time.Second))), LinkUp: s.WorldLink == health.LinkUp,
		Sessions: s.Sessions, Pending: s.DBPendingWrites, DBUp: s.DBUp, NATSUp: s.NATSConnected,
		LoginLock: s.LoginLock, LockOK: s.LoginLockOK(), Peers: peers(s.Peers),
		PMs:       fmt.Sprintf("%d delivered, %d dropped", s.PMsDelivered, s.PMsDropped),
		Malformed: fmt.Sprintf("%d dropped, %d malformed · %.1f in/s, %.1f out/s", s.FramesDropped, s.FramesMalformed, s.FramesInPerSec, s.FramesOutPerSec),
		PMRate:    "—", LoginRate: "—",
	}
	v.StateText = "snapshot " + duration(now.Sub(n.Received)) + " ago"
	v.Stale = now.Sub(n.Received) > n.Interval*3/2
	switch {
	case n.Stopped:
		v.State, v.Severity, v.StateText = "stopped", ui.SocialBad, "stopped at "+clock(n.DownSince)
	case n.Down:
		v.State, v.Severity, v.StateText = "down", ui.SocialBad, "silent since "+clock(n.DownSince)
	}
	v.WorldLink = "up"
	if !v.LinkUp {
		v.WorldLink = "down since " + clock(n.LinkDownSince)
	}
	v.DB, v.NATS = "down", "disconnected"
	if s.DBUp {
		v.DB = fmt.Sprintf("up · %.2f ms", s.DBRTTMillis)
	}
	if s.NATSConnected {
		v.NATS = fmt.Sprintf("up · %.2f ms", s.NATSRTTMillis)
	}
	if n.RatesKnown && !n.Down {
		v.PMRate, v.LoginRate = fmt.Sprintf("%.1f", n.PMRate), fmt.Sprintf("%.1f", n.LoginRate)
	}
	for _, cause := range slices.Sorted(maps.Keys(s.PMsDroppedBy)) {
		if c := s.PMsDroppedBy[cause]; c > 0 {
			v.Drops = append(v.Drops, ui.SocialDrop{Cause: strings.ReplaceAll(cause, "_", " "), Count: c})
		}
	}
	for _, si := range insts {
		if !p.CanView(si.License) {
			v.Hidden++
			continue
		}
		v.Instances = append(v.Instances, ui.SocialInstanceRef{Name: si.Instance, Host: si.License, State: si.State,
			Href: "/hosts/" + si.License + "/instances/" + si.Instance})
	}
	return v
}

func peers(ids []int) string {
	if len(ids) == 0 {
		return "none"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ", ")
}

// clock is a moment as the page shows it.
func clock(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format("15:04:05 UTC")
}

// duration is a rounded, short duration ("4 s", "3 min", "2 h 5 min").
func duration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(max(d, 0).Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%d d", int(d.Hours()/24))
}
