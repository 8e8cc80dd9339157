package proto

import "github.com/corrosion/corrosion/internal/frame"

// Outbound messages: ether → world. Sizes are payload sizes, opcode
// included; the table (table.go) holds each message's opcode row.

// UpdateFriendList (128) tells the world where one friend is: target37 u64,
// friend37 u64, node u8 (0 = offline or hidden). 18 bytes.
type UpdateFriendList struct {
	Target37, Friend37 uint64
	Node               uint8
}

// UpdateIgnoreList (129) carries a whole ignore list: target37 u64, count
// u16, then count ignore37 u64s. Exactly 11 + 8×count bytes.
type UpdateIgnoreList struct {
	Target37 uint64
	Ignores  []uint64
}

// MessagePrivate (130) delivers a private message: recipient37 u64,
// sender37 u64, msg_id i32, level u8, then the body (the rest of the frame).
// At least 22 bytes.
type MessagePrivate struct {
	Recipient37, Sender37 uint64
	MsgID                 int32
	Level                 uint8
	Body                  []byte
}

// FriendListComplete (131) ends a RequestLists answer: target37 u64. 9 bytes.
type FriendListComplete struct{ Target37 uint64 }

// PlayerLoadResponse (132): user37 u64, then the save data (the rest of the
// frame; empty when there is none). At least 9 bytes.
type PlayerLoadResponse struct {
	User37   uint64
	SaveData []byte
}

// PlayerSaveAck (133): user37 u64, success u8 (encoded 0/1; any non-zero
// decodes as true). 10 bytes.
type PlayerSaveAck struct {
	User37  uint64
	Success bool
}

// LoginCheckResponse (134): user37 u64, allowed u8 (encoded 0/1; any
// non-zero decodes as true). 10 bytes.
type LoginCheckResponse struct {
	User37  uint64
	Allowed bool
}

func (UpdateFriendList) Op() Op   { return OpUpdateFriendList }
func (UpdateIgnoreList) Op() Op   { return OpUpdateIgnoreList }
func (MessagePrivate) Op() Op     { return OpMessagePrivate }
func (FriendListComplete) Op() Op { return OpFriendListComplete }
func (PlayerLoadResponse) Op() Op { return OpPlayerLoadResponse }
func (PlayerSaveAck) Op() Op      { return OpPlayerSaveAck }
func (LoginCheckResponse) Op() Op { return OpLoginCheckResponse }

func (m UpdateFriendList) AppendPayload(b []byte) []byte {
	return append(appendPair(b, OpUpdateFriendList, m.Target37, m.Friend37), m.Node)
}

// AppendPayload writes count as u16. A list longer than 8190 entries makes
// a payload over MaxPayload, which AppendFrame refuses.
func (m UpdateIgnoreList) AppendPayload(b []byte) []byte {
	return frame.AppendUint64s(be.AppendUint64(append(b, byte(OpUpdateIgnoreList)), m.Target37), m.Ignores)
}

func (m MessagePrivate) AppendPayload(b []byte) []byte {
	b = appendPair(b, OpMessagePrivate, m.Recipient37, m.Sender37)
	b = be.AppendUint32(b, uint32(m.MsgID))
	return append(append(b, m.Level), m.Body...)
}

func (m FriendListComplete) AppendPayload(b []byte) []byte {
	return be.AppendUint64(append(b, byte(OpFriendListComplete)), m.Target37)
}

func (m PlayerLoadResponse) AppendPayload(b []byte) []byte {
	return append(be.AppendUint64(append(b, byte(OpPlayerLoadResponse)), m.User37), m.SaveData...)
}

func (m PlayerSaveAck) AppendPayload(b []byte) []byte {
	return append(be.AppendUint64(append(b, byte(OpPlayerSaveAck)), m.User37), boolByte(m.Success))
}

func (m LoginCheckResponse) AppendPayload(b []byte) []byte {
	return append(be.AppendUint64(append(b, byte(OpLoginCheckResponse)), m.User37), boolByte(m.Allowed))
}

func (m *UpdateFriendList) decode(p []byte) (Message, error) {
	m.Target37, m.Friend37, m.Node = be.Uint64(p[1:]), be.Uint64(p[9:]), p[17]
	return m, nil
}

// decode checks the count against the length (the table has checked the
// head) and reuses m.Ignores' storage when it is large enough.
func (m *UpdateIgnoreList) decode(p []byte) (Message, error) {
	ids, err := frame.Uint64s(m.Ignores, p, 9)
	if err != nil {
		return nil, decodeError(p, err)
	}
	m.Target37, m.Ignores = be.Uint64(p[1:]), ids
	return m, nil
}

func (m *MessagePrivate) decode(p []byte) (Message, error) {
	m.Recipient37, m.Sender37 = be.Uint64(p[1:]), be.Uint64(p[9:])
	m.MsgID, m.Level = int32(be.Uint32(p[17:])), p[21]
	m.Body = rest(p, 22)
	return m, nil
}

func (m *FriendListComplete) decode(p []byte) (Message, error) {
	m.Target37 = be.Uint64(p[1:])
	return m, nil
}

func (m *PlayerLoadResponse) decode(p []byte) (Message, error) {
	m.User37, m.SaveData = be.Uint64(p[1:]), rest(p, 9)
	return m, nil
}

func (m *PlayerSaveAck) decode(p []byte) (Message, error) {
	m.User37, m.Success = be.Uint64(p[1:]), p[9] != 0
	return m, nil
}

func (m *LoginCheckResponse) decode(p []byte) (Message, error) {
	m.User37, m.Allowed = be.Uint64(p[1:]), p[9] != 0
	return m, nil
}
