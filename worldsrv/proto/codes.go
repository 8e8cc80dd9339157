package proto

import "strconv"

// Limits the protocol sets.
const (
	// MaxText is the longest PrivateMessage text a client may send, in bytes.
	MaxText = 80
	// MaxStr8 is the longest str8 field, in bytes.
	MaxStr8 = 255
	// MaxNearby is the most players one Nearby frame lists.
	MaxNearby = 255
	// NearbyRadius is the Chebyshev distance, in tiles, within which
	// players are listed in Nearby.
	NearbyRadius = 15
)

// LoginCode is the code of a LoginResponse (the classic numbering).
type LoginCode uint8

// Login response codes.
const (
	LoginOK                 LoginCode = 2  // success
	LoginBadCredentials     LoginCode = 3  // invalid username or password
	LoginAlreadyOnline      LoginCode = 5  // already logged in, on this world or another
	LoginWorldFull          LoginCode = 7  // the world is full
	LoginServerOffline      LoginCode = 8  // the login server (the sidecar link) is down
	LoginTooManyConnections LoginCode = 9  // too many connections from this address
	LoginCouldNotComplete   LoginCode = 13 // the login check timed out
	LoginShuttingDown       LoginCode = 14 // the world is shutting down
)

var loginCodeNames = map[LoginCode]string{
	LoginOK:                 "success",
	LoginBadCredentials:     "invalid username or password",
	LoginAlreadyOnline:      "already logged in",
	LoginWorldFull:          "world is full",
	LoginServerOffline:      "login server offline",
	LoginTooManyConnections: "too many connections from this address",
	LoginCouldNotComplete:   "could not complete login",
	LoginShuttingDown:       "world is shutting down",
}

// String says what the code means ("world is full"), or "LoginCode(n)" for
// a code the protocol does not define.
func (c LoginCode) String() string {
	if s, ok := loginCodeNames[c]; ok {
		return s
	}
	return "LoginCode(" + strconv.Itoa(int(c)) + ")"
}

// Defined reports whether the protocol defines c.
func (c LoginCode) Defined() bool { _, ok := loginCodeNames[c]; return ok }

// LogoutReason is why the world logged a player out (LoggedOut).
type LogoutReason uint8

// Logout reasons.
const (
	LogoutRequested LogoutReason = 0 // the client sent Logout
	LogoutKicked    LogoutReason = 1 // an admin kicked the player
	LogoutShutdown  LogoutReason = 2 // the world is shutting down
	LogoutIdle      LogoutReason = 3 // the client was silent too long
)

var logoutReasonNames = [...]string{
	LogoutRequested: "requested",
	LogoutKicked:    "kicked",
	LogoutShutdown:  "world shutting down",
	LogoutIdle:      "idle",
}

// String names the reason ("kicked"), or "LogoutReason(n)" for one the
// protocol does not define.
func (r LogoutReason) String() string {
	if int(r) < len(logoutReasonNames) {
		return logoutReasonNames[r]
	}
	return "LogoutReason(" + strconv.Itoa(int(r)) + ")"
}

// ChatMode is one chat channel's setting: who may reach the player there.
type ChatMode uint8

// Chat modes.
const (
	ChatOn      ChatMode = 0 // everyone
	ChatFriends ChatMode = 1 // friends only
	ChatOff     ChatMode = 2 // nobody
)

var chatModeNames = [...]string{ChatOn: "on", ChatFriends: "friends", ChatOff: "off"}

// Valid reports whether m is one of the three modes.
func (m ChatMode) Valid() bool { return m <= ChatOff }

// String names the mode ("friends"), or "ChatMode(n)" for an invalid one.
func (m ChatMode) String() string {
	if m.Valid() {
		return chatModeNames[m]
	}
	return "ChatMode(" + strconv.Itoa(int(m)) + ")"
}

// Level is the rank of a private message's sender.
type Level uint8

// Sender levels.
const (
	LevelPlayer    Level = 0
	LevelModerator Level = 1
	LevelAdmin     Level = 2
)

var levelNames = [...]string{LevelPlayer: "player", LevelModerator: "moderator", LevelAdmin: "admin"}

// String names the level ("moderator"), or "Level(n)" for one the protocol
// does not define.
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return "Level(" + strconv.Itoa(int(l)) + ")"
}
