// Package privacy names a player's private chat mode and holds the one rule
// of who may see the player (its node) and send it private messages. Both
// ether/session and ether/cluster use it; it imports nothing of ether.
package privacy

import "strconv"

// Mode is a player's private chat mode. Its values are the ones on every
// wire: the world link (ChatModeUpdate, PlayerResync), the cluster's
// presence payloads and the player_settings table.
type Mode uint8

// The private chat modes.
const (
	On      Mode = 0 // everyone sees the player
	Friends Mode = 1 // only the players on the player's own friend list
	Off     Mode = 2 // nobody
)

// Valid reports whether m is On, Friends or Off.
func (m Mode) Valid() bool { return m <= Off }

// String names the mode for logs.
func (m Mode) String() string {
	switch m {
	case On:
		return "on"
	case Friends:
		return "friends"
	case Off:
		return "off"
	}
	return "mode(" + strconv.Itoa(int(m)) + ")"
}

// Visible is the rule of docs/ether.md: whether another player may
// see a player whose mode is m (learn its node, send it private messages).
// listed reports whether the player's own friend list holds the other
// player; it is called in Friends mode only, so a caller may pass a search
// of the list without paying for it in the other modes. An unknown mode
// hides the player.
func (m Mode) Visible(listed func() bool) bool {
	switch m {
	case On:
		return true
	case Friends:
		return listed()
	}
	return false
}
