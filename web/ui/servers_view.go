package ui

import (
	"net/url"
	"strconv"
	"strings"
)

// ServersPage is the Servers page's data: every instance the operator
// may see, searched and filtered.
type ServersPage struct {
	Servers []ServerRow
	// Visible is how many instances the operator can see before the
	// search and filter.
	Visible int
	Query   string // search (name, game, host)
	State   string // only instances in this state; "" any
	Since   int64  // render time, Unix ms (the live stream's snapshot point)
	IsAdmin bool
}

// ServerRow is one instance of the Servers table.
type ServerRow struct {
	InstanceRow
	HostName string // its host's name (HostRow.Name)
	// Players is the player count of the panel's last inbound probe (its
	// A2S answer); "—" when none is known.
	Players string
	// Build is the installed build ("" unknown); UpdateAvailable: the
	// agent's last update check saw AvailableBuild, a different one.
	Build           string
	AvailableBuild  string
	UpdateAvailable bool
	// Reach is the last inbound probe's verdict ("" never probed).
	Reach string
}

// Name is what the row is called: its label, else its id.
func (s ServerRow) Name() string {
	if s.Label != "" {
		return s.Label
	}
	return s.ID
}

// SearchText is what a search matches, lower-cased: the instance's label,
// id and game, its host's name and license.
func (s ServerRow) SearchText() string {
	return strings.ToLower(s.Label + " " + s.ID + " " + s.Game + " " + s.HostName + " " + s.License)
}

// Filtered reports whether a search or filter is applied.
func (s ServersPage) Filtered() bool { return s.Query != "" || s.State != "" }

// ServersURL is the Servers page.
const ServersURL = "/servers"

// selfURL is the Servers page with the search and filter, for refetches.
func (s ServersPage) selfURL() string {
	v := url.Values{}
	if s.Query != "" {
		v.Set("q", s.Query)
	}
	if s.State != "" {
		v.Set("state", s.State)
	}
	if len(v) == 0 {
		return ServersURL
	}
	return ServersURL + "?" + v.Encode()
}

// EventServersChanged tells the Servers page that an instance state on a
// host it may list changed: its table fetches itself again.
const EventServersChanged = "servers-changed"

// serversCount is the table's footnote: "12 of 40 servers".
func serversCount(shown, visible int) string {
	return strconv.Itoa(shown) + " of " + strconv.Itoa(visible) + " servers"
}
