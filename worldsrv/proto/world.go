package proto

import (
	"slices"

	"github.com/corrosion/corrosion/internal/frame"
)

// World → client messages. Sizes are payload sizes, opcode included; the
// world table (table.go) holds each message's row. The string fields of a
// message a Decoder returns alias the payload, and its slices are the
// Decoder's storage (see Decoder).

// LoginResponse (1) answers Login: code u8; when the code is LoginOK,
// pid u16 and node u8 follow. 5 bytes on success, else 2.
type LoginResponse struct {
	Code LoginCode
	PID  uint16 // the player's id on this world; only with LoginOK
	Node uint8  // the world's node id; only with LoginOK
}

// FriendStatus (2) says where a friend is: name37 u64, node u8 (0 offline
// or hidden, else the friend's node id). 10 bytes.
type FriendStatus struct {
	Name37 uint64
	Node   uint8
}

// IgnoreList (3) carries the whole ignore list: count u16, then count
// name37 u64s. Exactly 3 + 8×count bytes.
type IgnoreList struct{ Names37 []uint64 }

// PrivateMessageIn (4) delivers a private message: from37 u64, msg_id i32,
// level u8, then the text (the rest of the frame, UTF-8). At least 14
// bytes. The world sends the 1–MaxText bytes a client sent, word-filtered.
type PrivateMessageIn struct {
	From37 uint64
	MsgID  int32
	Level  Level
	Text   string
}

// FriendListLoaded (5) follows the friends' statuses at login. 1 byte.
type FriendListLoaded struct{}

// ChatSettingsNow (6) is the protocol's world → client ChatSettings, the
// modes now in force: public u8, private u8, trade u8 (each 0–2). 4 bytes.
type ChatSettingsNow struct {
	Public, Private, Trade ChatMode
}

// SystemMessage (7): text (the rest of the frame, UTF-8). At least 1 byte.
type SystemMessage struct{ Text string }

// LoggedOut (8) is the protocol's world → client Logout, sent before the
// world closes the connection: reason u8. 2 bytes.
type LoggedOut struct{ Reason LogoutReason }

// MapInfo (9) describes the world's map, once after login: seed u64,
// biome u8, width u16, height u16. 14 bytes. The tiles are /map.bin on the
// world's HTTP port.
type MapInfo struct {
	Seed          uint64
	Biome         uint8 // 0 grassland, 1 arctic, 2 desert, 3 marshland, 4 tropic
	Width, Height uint16
}

// Position (10) is the player's own tile: x u16, y u16. 5 bytes.
type Position struct{ X, Y uint16 }

// Nearby (11) lists the players within NearbyRadius tiles, nearest first:
// count u16, then count × (pid u16, name37 u64, x u16, y u16). Exactly
// 3 + 14×count bytes, count at most MaxNearby.
type Nearby struct{ Players []NearbyPlayer }

// NearbyPlayer is one entry of Nearby.
type NearbyPlayer struct {
	PID    uint16
	Name37 uint64
	X, Y   uint16
}

// nearbyEntry is the encoded size of a NearbyPlayer.
const nearbyEntry = 2 + 8 + 2 + 2

func (LoginResponse) Op() WorldOp    { return OpLoginResponse }
func (FriendStatus) Op() WorldOp     { return OpFriendStatus }
func (IgnoreList) Op() WorldOp       { return OpIgnoreList }
func (PrivateMessageIn) Op() WorldOp { return OpPrivateMessageIn }
func (FriendListLoaded) Op() WorldOp { return OpFriendListLoaded }
func (ChatSettingsNow) Op() WorldOp  { return OpChatSettingsNow }
func (SystemMessage) Op() WorldOp    { return OpSystemMessage }
func (LoggedOut) Op() WorldOp        { return OpLoggedOut }
func (MapInfo) Op() WorldOp          { return OpMapInfo }
func (Position) Op() WorldOp         { return OpPosition }
func (Nearby) Op() WorldOp           { return OpNearby }

// AppendPayload writes PID and Node only when Code is LoginOK.
func (m LoginResponse) AppendPayload(b []byte) []byte {
	b = append(b, byte(OpLoginResponse), byte(m.Code))
	if m.Code == LoginOK {
		b = append(be.AppendUint16(b, m.PID), m.Node)
	}
	return b
}

func (m FriendStatus) AppendPayload(b []byte) []byte {
	return append(be.AppendUint64(append(b, byte(OpFriendStatus)), m.Name37), m.Node)
}

// AppendPayload writes count as u16. A list of more than 511 names makes a
// payload over MaxPayload, which AppendFrame refuses.
func (m IgnoreList) AppendPayload(b []byte) []byte {
	return frame.AppendUint64s(append(b, byte(OpIgnoreList)), m.Names37)
}

// AppendPayload writes Text as it is; the decoders refuse text that is not
// UTF-8, so text from elsewhere (another world, through ether) should pass
// through strings.ToValidUTF8 first.
func (m PrivateMessageIn) AppendPayload(b []byte) []byte {
	b = be.AppendUint64(append(b, byte(OpPrivateMessageIn)), m.From37)
	b = be.AppendUint32(b, uint32(m.MsgID))
	return append(append(b, byte(m.Level)), m.Text...)
}

func (FriendListLoaded) AppendPayload(b []byte) []byte { return append(b, byte(OpFriendListLoaded)) }

func (m ChatSettingsNow) AppendPayload(b []byte) []byte {
	return append(b, byte(OpChatSettingsNow), byte(m.Public), byte(m.Private), byte(m.Trade))
}

func (m SystemMessage) AppendPayload(b []byte) []byte {
	return append(append(b, byte(OpSystemMessage)), m.Text...)
}

func (m LoggedOut) AppendPayload(b []byte) []byte {
	return append(b, byte(OpLoggedOut), byte(m.Reason))
}

func (m MapInfo) AppendPayload(b []byte) []byte {
	b = append(be.AppendUint64(append(b, byte(OpMapInfo)), m.Seed), m.Biome)
	return be.AppendUint16(be.AppendUint16(b, m.Width), m.Height)
}

func (m Position) AppendPayload(b []byte) []byte {
	return be.AppendUint16(be.AppendUint16(append(b, byte(OpPosition)), m.X), m.Y)
}

// AppendPayload writes at most the first MaxNearby players, which are the
// nearest when Players is sorted as the protocol lists them.
func (m Nearby) AppendPayload(b []byte) []byte {
	ps := m.Players[:min(len(m.Players), MaxNearby)]
	b = slices.Grow(b, 3+nearbyEntry*len(ps))
	b = be.AppendUint16(append(b, byte(OpNearby)), uint16(len(ps)))
	for _, p := range ps {
		b = be.AppendUint64(be.AppendUint16(b, p.PID), p.Name37)
		b = be.AppendUint16(be.AppendUint16(b, p.X), p.Y)
	}
	return b
}

// The decode methods take the whole payload, opcode first, whose opcode
// and length the table has checked, and fill the receiver; on error they
// leave it as it was.

// decode accepts any code, so that a client can show a code newer than
// itself as a failure; only LoginOK carries pid and node.
func (m *LoginResponse) decode(p []byte) (WorldMessage, error) {
	code := LoginCode(p[1])
	switch {
	case code == LoginOK && len(p) != 5:
		return nil, loginLengthError(p, 5)
	case code != LoginOK && len(p) != 2:
		return nil, loginLengthError(p, 2)
	}
	*m = LoginResponse{Code: code}
	if code == LoginOK {
		m.PID, m.Node = be.Uint16(p[2:]), p[4]
	}
	return m, nil
}

func (m *FriendStatus) decode(p []byte) (WorldMessage, error) {
	m.Name37, m.Node = be.Uint64(p[1:]), p[9]
	return m, nil
}

// decode checks the count against the length and reuses m.Names37's
// storage when it is large enough.
func (m *IgnoreList) decode(p []byte) (WorldMessage, error) {
	ids, err := frame.Uint64s(m.Names37, p, 1)
	if err != nil {
		return nil, err
	}
	m.Names37 = ids
	return m, nil
}

func (m *PrivateMessageIn) decode(p []byte) (WorldMessage, error) {
	text, err := readRest(p, 14, "text")
	if err != nil {
		return nil, err
	}
	m.From37, m.MsgID, m.Level = be.Uint64(p[1:]), int32(be.Uint32(p[9:])), Level(p[13])
	m.Text = text
	return m, nil
}

func (m *FriendListLoaded) decode([]byte) (WorldMessage, error) { return m, nil }

func (m *ChatSettingsNow) decode(p []byte) (WorldMessage, error) {
	pub, priv, trade, err := readModes(p)
	if err != nil {
		return nil, err
	}
	m.Public, m.Private, m.Trade = pub, priv, trade
	return m, nil
}

func (m *SystemMessage) decode(p []byte) (WorldMessage, error) {
	text, err := readRest(p, 1, "text")
	if err != nil {
		return nil, err
	}
	m.Text = text
	return m, nil
}

func (m *LoggedOut) decode(p []byte) (WorldMessage, error) {
	m.Reason = LogoutReason(p[1])
	return m, nil
}

func (m *MapInfo) decode(p []byte) (WorldMessage, error) {
	m.Seed, m.Biome = be.Uint64(p[1:]), p[9]
	m.Width, m.Height = be.Uint16(p[10:]), be.Uint16(p[12:])
	return m, nil
}

func (m *Position) decode(p []byte) (WorldMessage, error) {
	m.X, m.Y = be.Uint16(p[1:]), be.Uint16(p[3:])
	return m, nil
}

// decode checks the count (at most MaxNearby) against the length and
// reuses m.Players' storage when it is large enough.
func (m *Nearby) decode(p []byte) (WorldMessage, error) {
	count := int(be.Uint16(p[1:]))
	if count > MaxNearby {
		return nil, nearbyCountError(count)
	}
	if len(p) != 3+nearbyEntry*count {
		return nil, frame.CountError(len(p), 3+nearbyEntry*count, count)
	}
	ps := slices.Grow(m.Players[:0], count)
	for off := 3; off < len(p); off += nearbyEntry {
		ps = append(ps, NearbyPlayer{
			PID: be.Uint16(p[off:]), Name37: be.Uint64(p[off+2:]),
			X: be.Uint16(p[off+10:]), Y: be.Uint16(p[off+12:]),
		})
	}
	m.Players = ps
	return m, nil
}
