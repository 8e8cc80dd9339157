package ui

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// HostRow is one host of the fleet table (and the head of its host page).
type HostRow struct {
	License      string
	Label        string
	HostName     string
	AgentVersion string
	Seen         bool   // a heartbeat has arrived
	Online       bool   // by the store's one offline rule
	Stale        string // offline: "last heartbeat 3 min ago"; "no heartbeat yet"
	CPU          string // "12.5 %", "—" when not measured
	Mem          string // "3.1 / 7.8 GiB"
	Disk         string // "120 / 500 GiB"
	Spark        []float64
	Counts       []StateCount
}

// StateCount is how many of a host's instances are in a state.
type StateCount struct {
	State string
	N     int
}

// Name is what the row is called: its hostname, else its label, else the
// license.
func (h HostRow) Name() string {
	switch {
	case h.HostName != "":
		return h.HostName
	case h.Label != "":
		return h.Label
	}
	return h.License
}

// FleetPage is the fleet page's data.
type FleetPage struct {
	Hosts []HostRow
	// Visible is how many hosts the operator can see before the filter.
	Visible  int
	Query    string // search
	Liveness string // "", "online", "offline"
	State    string // an instance state hosts must have one of; "" any
	Since    int64  // render time, Unix ms (the live stream's snapshot point)
	IsAdmin  bool
	// Unknown are licenses heartbeats arrive from that no admin created
	// (admins only).
	Unknown []string
}

// Filtered reports whether a search or filter is applied.
func (f FleetPage) Filtered() bool { return f.Query != "" || f.Liveness != "" || f.State != "" }

// LiveFleetURL is the fleet's live stream for a page rendered at since.
func LiveFleetURL(since int64) string { return "/live/fleet?since=" + strconv.FormatInt(since, 10) }

// fleetURL is the fleet page with the filter, for refetches.
func (f FleetPage) selfURL() string {
	q := []string{}
	if f.Query != "" {
		q = append(q, "q="+urlEscape(f.Query))
	}
	if f.Liveness != "" {
		q = append(q, "online="+urlEscape(f.Liveness))
	}
	if f.State != "" {
		q = append(q, "state="+urlEscape(f.State))
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + strings.Join(q, "&")
}

// Cell names a live cell of a fleet or instance table row.
type Cell string

// The live cells.
const (
	CellAgent   Cell = "agent"
	CellCPU     Cell = "cpu"
	CellMem     Cell = "mem"
	CellDisk    Cell = "disk"
	CellCounts  Cell = "counts"
	CellUptime  Cell = "uptime"
	CellCrashes Cell = "crashes"
)

// EventHostCell is the event of one cell of a host's fleet row.
func EventHostCell(license string, c Cell) string { return "host-" + string(c) + "-" + license }

// EventInstanceCell is the event of one cell of an instance's host table row.
func EventInstanceCell(instance string, c Cell) string { return "inst-" + string(c) + "-" + instance }

// EventFleetChanged tells the fleet page a host it may not list appeared.
const EventFleetChanged = "fleet-changed"

// InstanceStates are the states, in the order counts are shown.
var InstanceStates = []string{"running", "starting", "stopping", "crashed", "stopped", "configured", "missing_root"}

// Ago renders how long ago t was, coarsely (it changes at most once a
// minute after the first minute): "just now", "40 s", "3 min", "2 h", "5 d".
func Ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 5*time.Second:
		return "just now"
	case d < time.Minute:
		return strconv.Itoa(int(d/(10*time.Second))*10) + " s ago"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h ago"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + " d ago"
}

// SparkPoints maps values (0…max; max ≤ 0: the largest value) to an SVG
// polyline's points in a w × h box, oldest on the left.
func SparkPoints(vals []float64, max float64, w, h int) string {
	if len(vals) == 0 {
		return ""
	}
	if max <= 0 {
		for _, v := range vals {
			max = math.Max(max, v)
		}
		if max <= 0 {
			max = 1
		}
	}
	step := float64(w)
	if len(vals) > 1 {
		step = float64(w) / float64(len(vals)-1)
	}
	b := make([]byte, 0, len(vals)*10)
	for i, v := range vals {
		v = math.Min(math.Max(v, 0), max)
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendFloat(b, float64(i)*step, 'f', 1, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, float64(h)-v/max*float64(h-2)-1, 'f', 1, 64)
	}
	return string(b)
}

func urlEscape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(strconv.FormatInt(int64(c)|0x100, 16)[1:]))
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// unknownText says which unknown licenses send heartbeats (at most three
// named).
func unknownText(ls []string) string {
	named := ls
	if len(named) > 3 {
		named = named[:3]
	}
	list := strings.Join(named, ", ")
	if len(ls) > 3 {
		list += " and " + strconv.Itoa(len(ls)-3) + " more"
	}
	if len(ls) == 1 {
		return "Heartbeats arrive from a license nobody created: " + list + "."
	}
	return "Heartbeats arrive from " + strconv.Itoa(len(ls)) + " licenses nobody created: " + list + "."
}
