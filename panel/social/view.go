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
const VisibilityRule = "you see the clusters whose every node runs on a host you have a grant for"

// instKey names an agent instance.
type instKey struct{ license, instance string }

// Build turns the collector's nodes and the fleet's ether and world
// instances into the page for p at now. A node belongs to the license and
// instance it reports itself (ether/health's Agent, which the agent passes
// to every instance), never to one whose name looks like it. An admin sees
// every cluster; anyone else sees a cluster only when every one of its
// nodes reports a license they can view (a friends list spans the whole
// cluster, so its figures belong to every license in it). A node that
// reports no license is not run by an agent: only admins see it.
func Build(nodes []NodeStatus, insts []store.SocialInstance, p *auth.Principal, now time.Time) ui.SocialView {
	fleet := make(map[instKey]store.SocialInstance, len(insts))
	for _, si := range insts {
		fleet[instKey{si.License, si.Instance}] = si
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
		if !Visible(members, p) {
			v.Hidden = true
			continue
		}
		v.Clusters = append(v.Clusters, buildCluster(name, members, fleet, now))
	}
	slices.SortStableFunc(v.Clusters, func(a, b ui.SocialCluster) int { return rank(b.Severity) - rank(a.Severity) })
	return v
}

// Visible is the tenant rule: p sees a cluster when p is an admin, or when
// every node of it reports a license p can view (and so does the world it
// reports, when it names one).
func Visible(members []NodeStatus, p *auth.Principal) bool {
	if p.IsAdmin() {
		return true
	}
	for _, n := range members {
		if a := n.Snap.Agent; a == nil || !p.CanView(a.License) {
			return false
		}
		if w := n.Snap.World; w != nil && w.License != "" && !p.CanView(w.License) {
			return false
		}
	}
	return true
}

func rank(s ui.SocialSeverity) int {
	switch s {
	case ui.SocialBad:
		return 3
	case ui.SocialWarn:
		return 2
	case ui.SocialStopped:
		return 1
	}
	return 0
}

func buildCluster(name string, members []NodeStatus, fleet map[instKey]store.SocialInstance, now time.Time) ui.SocialCluster {
	worlds := stoppedWorlds(members, fleet)
	c := ui.SocialCluster{Name: name, Issues: Issues(members, worlds)}
	for _, n := range members {
		node := buildNode(n, fleet, now)
		if wd, ok := worlds[n.Node]; ok && wd.stopped && !node.LinkUp {
			node.WorldLink, node.WorldStopped = wd.text, true
		}
		c.Nodes = append(c.Nodes, node)
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

// worldOf is the fleet's instance of the world a node reports (its last
// WorldInfo), else the node's own instance when that is a world (a sidecar
// the world spawned runs as the world).
func worldOf(n NodeStatus, fleet map[instKey]store.SocialInstance) (store.SocialInstance, bool) {
	if w := n.Snap.World; w != nil && w.License != "" {
		si, ok := fleet[instKey{w.License, w.Instance}]
		return si, ok
	}
	si, ok := instanceOf(n, fleet)
	return si, ok && si.Game == "worldsrv"
}

// stoppedWorlds says, per node, why its world is not running, from the
// world instance the node reports: "world11 stopped by ada at 12:03:04
// UTC" when the audit log knows, "world11 is crashed" otherwise.
func stoppedWorlds(members []NodeStatus, fleet map[instKey]store.SocialInstance) map[int]worldDown {
	out := make(map[int]worldDown)
	for _, n := range members {
		si, ok := worldOf(n, fleet)
		if !ok || si.State == "running" {
			continue
		}
		d := worldDown{text: si.Instance + " is " + si.State, stopped: si.State == "stopped"}
		if d.stopped && si.StoppedBy != "" {
			d.text = si.Instance + " stopped by " + si.StoppedBy + " at " + clock(si.StoppedAt)
		} else if d.stopped {
			d.text = si.Instance + " stopped"
		}
		out[n.Node] = d
	}
	return out
}

// worldDown is why a node's world is not running.
type worldDown struct {
	text    string // "world11 stopped by ada at 12:03:04 UTC", "world11 is crashed"
	stopped bool   // stopped on purpose: not a fault
}

// instanceOf is the fleet's instance the node reports it runs as.
func instanceOf(n NodeStatus, fleet map[instKey]store.SocialInstance) (store.SocialInstance, bool) {
	a := n.Snap.Agent
	if a == nil {
		return store.SocialInstance{}, false
	}
	si, ok := fleet[instKey{a.License, a.Instance}]
	return si, ok
}

// Issues lists what is wrong in a cluster, node by node: down nodes, world
// links (with why, when worlds names a stopped world instance of the node),
// database, NATS, the login lock, write backlogs and nodes that do not see
// each other.
func Issues(members []NodeStatus, worlds map[int]worldDown) []ui.SocialIssue {
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
		wd, known := worlds[n.Node]
		switch {
		case s.WorldLink == health.LinkUp:
		case known && wd.stopped:
			add(ui.SocialStopped, "node %d: world %s", n.Node, wd.text)
		case known:
			add(ui.SocialBad, "node %d: world link down since %s (%s)", n.Node, clock(n.LinkDownSince), wd.text)
		default:
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

func buildNode(n NodeStatus, fleet map[instKey]store.SocialInstance, now time.Time) ui.SocialNode {
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
	switch a := s.Agent; {
	case a == nil:
		v.NoAgent = true
	default:
		v.Instances = append(v.Instances, instRef(instKey{a.License, a.Instance}, fleet))
	}
	if w := s.World; w != nil && w.License != "" && (s.Agent == nil || *s.Agent != health.Agent{License: w.License, Instance: w.Instance}) {
		v.Instances = append(v.Instances, instRef(instKey{w.License, w.Instance}, fleet))
	}
	return v
}

// instRef is a reported instance as the node row names it, linked when the
// fleet has it.
func instRef(k instKey, fleet map[instKey]store.SocialInstance) ui.SocialInstanceRef {
	ref := ui.SocialInstanceRef{Name: k.instance, Host: k.license}
	if si, ok := fleet[k]; ok {
		ref.State, ref.Href = si.State, "/hosts/"+si.License+"/instances/"+si.Instance
	}
	return ref
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
