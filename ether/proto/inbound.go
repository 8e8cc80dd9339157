package proto

// Inbound messages: world → ether. Sizes are payload sizes, opcode
// included; the table (table.go) holds each message's opcode row.

// WorldRegister (0) announces the world's node id: node_id u8. 2 bytes.
type WorldRegister struct{ NodeID uint8 }

// PlayerLogin (1) starts a session: user37 u64, pid u16. 11 bytes.
type PlayerLogin struct {
	User37 uint64
	PID    uint16
}

// PlayerLogout (2) ends a session: user37 u64. 9 bytes.
type PlayerLogout struct{ User37 uint64 }

// FriendAdd (3): owner37 u64, friend37 u64. 17 bytes.
type FriendAdd struct{ Owner37, Friend37 uint64 }

// FriendDel (4): owner37 u64, friend37 u64. 17 bytes.
type FriendDel struct{ Owner37, Friend37 uint64 }

// IgnoreAdd (5): owner37 u64, ignore37 u64. 17 bytes.
type IgnoreAdd struct{ Owner37, Ignore37 uint64 }

// IgnoreDel (6): owner37 u64, ignore37 u64. 17 bytes.
type IgnoreDel struct{ Owner37, Ignore37 uint64 }

// PrivateMessage (7): sender37 u64, target37 u64, level u8, then the body
// (the rest of the frame). At least 18 bytes.
type PrivateMessage struct {
	Sender37, Target37 uint64
	Level              uint8
	Body               []byte
}

// RequestLists (8) asks for a player's friend and ignore lists: user37 u64. 9 bytes.
type RequestLists struct{ User37 uint64 }

// ChatModeUpdate (9): user37 u64, private_mode u8 (0 on, 1 friends, 2 off). 10 bytes.
type ChatModeUpdate struct {
	User37      uint64
	PrivateMode uint8
}

// PlayerSaveRequest (10): user37 u64, then the save data (the rest of the
// frame). At least 9 bytes.
type PlayerSaveRequest struct {
	User37   uint64
	SaveData []byte
}

// PlayerLoadRequest (11): user37 u64. 9 bytes.
type PlayerLoadRequest struct{ User37 uint64 }

// PlayerResync (12) recreates a session after a reconnect: user37 u64,
// pid u16, private_mode u8. 12 bytes.
type PlayerResync struct {
	User37      uint64
	PID         uint16
	PrivateMode uint8
}

// LoginCheck (13) asks for the cluster-wide login lock: user37 u64. 9 bytes.
type LoginCheck struct{ User37 uint64 }

// RefreshAll (14) asks every session to refresh its presence. 1 byte (the opcode).
type RefreshAll struct{}

// LinkAuth (15) presents the world's link token: token (the rest of the
// frame). Beyond the seed's table: an ether with RS_LINK_TOKEN set requires
// it as a connection's first frame, and one without ignores it; see
// WriteLinkAuth. At least 1 byte.
type LinkAuth struct{ Token []byte }

// WorldInfo (17) tells the sidecar who its world is, for its health
// snapshot: license_len u8, license, instance_len u8, instance (the
// CORROSION_LICENSE_ID and CORROSION_INSTANCE_ID its agent gave it; empty:
// not run by an agent), then its public client URL (the rest of the
// frame). Beyond the seed's table: sent after WorldRegister, and an ether
// that does not know it drops it. A license or instance longer than 255
// bytes is cut to 255 when encoded. At least 3 bytes. Decoded fields alias
// the payload: copy them to keep them.
type WorldInfo struct{ License, Instance, PublicURL []byte }

func (WorldRegister) Op() Op     { return OpWorldRegister }
func (PlayerLogin) Op() Op       { return OpPlayerLogin }
func (PlayerLogout) Op() Op      { return OpPlayerLogout }
func (FriendAdd) Op() Op         { return OpFriendAdd }
func (FriendDel) Op() Op         { return OpFriendDel }
func (IgnoreAdd) Op() Op         { return OpIgnoreAdd }
func (IgnoreDel) Op() Op         { return OpIgnoreDel }
func (PrivateMessage) Op() Op    { return OpPrivateMessage }
func (RequestLists) Op() Op      { return OpRequestLists }
func (ChatModeUpdate) Op() Op    { return OpChatModeUpdate }
func (PlayerSaveRequest) Op() Op { return OpPlayerSaveRequest }
func (PlayerLoadRequest) Op() Op { return OpPlayerLoadRequest }
func (PlayerResync) Op() Op      { return OpPlayerResync }
func (LoginCheck) Op() Op        { return OpLoginCheck }
func (RefreshAll) Op() Op        { return OpRefreshAll }
func (LinkAuth) Op() Op          { return OpLinkAuth }
func (WorldInfo) Op() Op         { return OpWorldInfo }

func (m WorldRegister) AppendPayload(b []byte) []byte {
	return append(b, byte(OpWorldRegister), m.NodeID)
}

func (m PlayerLogin) AppendPayload(b []byte) []byte {
	b = be.AppendUint64(append(b, byte(OpPlayerLogin)), m.User37)
	return be.AppendUint16(b, m.PID)
}

func (m PlayerLogout) AppendPayload(b []byte) []byte {
	return be.AppendUint64(append(b, byte(OpPlayerLogout)), m.User37)
}

func (m FriendAdd) AppendPayload(b []byte) []byte {
	return appendPair(b, OpFriendAdd, m.Owner37, m.Friend37)
}

func (m FriendDel) AppendPayload(b []byte) []byte {
	return appendPair(b, OpFriendDel, m.Owner37, m.Friend37)
}

func (m IgnoreAdd) AppendPayload(b []byte) []byte {
	return appendPair(b, OpIgnoreAdd, m.Owner37, m.Ignore37)
}

func (m IgnoreDel) AppendPayload(b []byte) []byte {
	return appendPair(b, OpIgnoreDel, m.Owner37, m.Ignore37)
}

func (m PrivateMessage) AppendPayload(b []byte) []byte {
	b = appendPair(b, OpPrivateMessage, m.Sender37, m.Target37)
	return append(append(b, m.Level), m.Body...)
}

func (m RequestLists) AppendPayload(b []byte) []byte {
	return be.AppendUint64(append(b, byte(OpRequestLists)), m.User37)
}

func (m ChatModeUpdate) AppendPayload(b []byte) []byte {
	return append(be.AppendUint64(append(b, byte(OpChatModeUpdate)), m.User37), m.PrivateMode)
}

func (m PlayerSaveRequest) AppendPayload(b []byte) []byte {
	return append(be.AppendUint64(append(b, byte(OpPlayerSaveRequest)), m.User37), m.SaveData...)
}

func (m PlayerLoadRequest) AppendPayload(b []byte) []byte {
	return be.AppendUint64(append(b, byte(OpPlayerLoadRequest)), m.User37)
}

func (m PlayerResync) AppendPayload(b []byte) []byte {
	b = be.AppendUint64(append(b, byte(OpPlayerResync)), m.User37)
	return append(be.AppendUint16(b, m.PID), m.PrivateMode)
}

func (m LoginCheck) AppendPayload(b []byte) []byte {
	return be.AppendUint64(append(b, byte(OpLoginCheck)), m.User37)
}

func (RefreshAll) AppendPayload(b []byte) []byte { return append(b, byte(OpRefreshAll)) }

func (m LinkAuth) AppendPayload(b []byte) []byte {
	return append(append(b, byte(OpLinkAuth)), m.Token...)
}

func (m WorldInfo) AppendPayload(b []byte) []byte {
	lic, inst := m.License[:min(len(m.License), 255)], m.Instance[:min(len(m.Instance), 255)]
	b = append(append(b, byte(OpWorldInfo), byte(len(lic))), lic...)
	b = append(append(b, byte(len(inst))), inst...)
	return append(b, m.PublicURL...)
}

// The decode methods take the whole payload, opcode first, whose opcode
// and length the table has checked, and fill the receiver.

func (m *WorldRegister) decode(p []byte) (Message, error) {
	m.NodeID = p[1]
	return m, nil
}

func (m *PlayerLogin) decode(p []byte) (Message, error) {
	m.User37, m.PID = be.Uint64(p[1:]), be.Uint16(p[9:])
	return m, nil
}

func (m *PlayerLogout) decode(p []byte) (Message, error) {
	m.User37 = be.Uint64(p[1:])
	return m, nil
}

func (m *FriendAdd) decode(p []byte) (Message, error) {
	m.Owner37, m.Friend37 = be.Uint64(p[1:]), be.Uint64(p[9:])
	return m, nil
}

func (m *FriendDel) decode(p []byte) (Message, error) {
	m.Owner37, m.Friend37 = be.Uint64(p[1:]), be.Uint64(p[9:])
	return m, nil
}

func (m *IgnoreAdd) decode(p []byte) (Message, error) {
	m.Owner37, m.Ignore37 = be.Uint64(p[1:]), be.Uint64(p[9:])
	return m, nil
}

func (m *IgnoreDel) decode(p []byte) (Message, error) {
	m.Owner37, m.Ignore37 = be.Uint64(p[1:]), be.Uint64(p[9:])
	return m, nil
}

func (m *PrivateMessage) decode(p []byte) (Message, error) {
	m.Sender37, m.Target37, m.Level = be.Uint64(p[1:]), be.Uint64(p[9:]), p[17]
	m.Body = rest(p, 18)
	return m, nil
}

func (m *RequestLists) decode(p []byte) (Message, error) {
	m.User37 = be.Uint64(p[1:])
	return m, nil
}

func (m *ChatModeUpdate) decode(p []byte) (Message, error) {
	m.User37, m.PrivateMode = be.Uint64(p[1:]), p[9]
	return m, nil
}

func (m *PlayerSaveRequest) decode(p []byte) (Message, error) {
	m.User37, m.SaveData = be.Uint64(p[1:]), rest(p, 9)
	return m, nil
}

func (m *PlayerLoadRequest) decode(p []byte) (Message, error) {
	m.User37 = be.Uint64(p[1:])
	return m, nil
}

func (m *PlayerResync) decode(p []byte) (Message, error) {
	m.User37, m.PID, m.PrivateMode = be.Uint64(p[1:]), be.Uint16(p[9:]), p[11]
	return m, nil
}

func (m *LoginCheck) decode(p []byte) (Message, error) {
	m.User37 = be.Uint64(p[1:])
	return m, nil
}

func (m *RefreshAll) decode(p []byte) (Message, error) {
	return m, nil
}

func (m *LinkAuth) decode(p []byte) (Message, error) {
	m.Token = rest(p, 1)
	return m, nil
}

func (m *WorldInfo) decode(p []byte) (Message, error) {
	lic := 2 + int(p[1]) // end of the license; the instance's length byte
	if lic >= len(p) {
		return nil, countError(p, lic+1, int(p[1]))
	}
	inst := lic + 1 + int(p[lic])
	if inst > len(p) {
		return nil, countError(p, inst, int(p[lic]))
	}
	m.License, m.Instance, m.PublicURL = p[2:lic:lic], p[lic+1:inst:inst], rest(p, inst)
	return m, nil
}
