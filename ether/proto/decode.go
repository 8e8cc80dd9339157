package proto

// decodable is implemented by every message's pointer type: decode fills the
// message from a whole payload whose opcode the caller has checked, and
// returns the receiver (or nil and an error).
type decodable interface {
	decode(payload []byte) (Message, error)
}

// Decode decodes a payload of any defined opcode, inbound or outbound, into
// a newly allocated message and returns a pointer to it (*PlayerLogin etc).
// []byte fields alias payload. Fixed-size messages must have exactly their
// size; variable-size ones must hold their fixed head (UpdateIgnoreList:
// exactly 11 + 8×count bytes). Errors wrap ErrEmpty, ErrUnknownOp or ErrLength.
func Decode(payload []byte) (Message, error) {
	if len(payload) == 0 {
		return nil, refuse(payload, "")
	}
	m := newMessage(Op(payload[0]))
	if m == nil {
		return nil, refuse(payload, "")
	}
	return m.decode(payload)
}

// DecodeInbound is Decode for a world → ether payload: an outbound or
// undefined opcode (15–255) is ErrUnknownOp.
func DecodeInbound(payload []byte) (Message, error) {
	if len(payload) == 0 || !Op(payload[0]).Inbound() {
		return nil, refuse(payload, "inbound")
	}
	return newMessage(Op(payload[0])).decode(payload)
}

// DecodeOutbound is Decode for an ether → world payload: an inbound or
// undefined opcode (0–127, 135–255) is ErrUnknownOp.
func DecodeOutbound(payload []byte) (Message, error) {
	if len(payload) == 0 || !Op(payload[0]).Outbound() {
		return nil, refuse(payload, "outbound")
	}
	return newMessage(Op(payload[0])).decode(payload)
}

// A Decoder decodes into storage of its own, so decoding allocates nothing
// (UpdateIgnoreList's slice excepted, and it reuses its storage). The
// returned Message points into the Decoder and is valid only until the next
// call; []byte fields alias the payload. The zero value is ready to use; a
// Decoder is not safe for concurrent use.
type Decoder struct {
	worldRegister     WorldRegister
	playerLogin       PlayerLogin
	playerLogout      PlayerLogout
	friendAdd         FriendAdd
	friendDel         FriendDel
	ignoreAdd         IgnoreAdd
	ignoreDel         IgnoreDel
	privateMessage    PrivateMessage
	requestLists      RequestLists
	chatModeUpdate    ChatModeUpdate
	playerSaveRequest PlayerSaveRequest
	playerLoadRequest PlayerLoadRequest
	playerResync      PlayerResync
	loginCheck        LoginCheck
	refreshAll        RefreshAll

	updateFriendList   UpdateFriendList
	updateIgnoreList   UpdateIgnoreList
	messagePrivate     MessagePrivate
	friendListComplete FriendListComplete
	playerLoadResponse PlayerLoadResponse
	playerSaveAck      PlayerSaveAck
	loginCheckResponse LoginCheckResponse
}

// Decode is the package's Decode, into the Decoder's storage.
func (d *Decoder) Decode(payload []byte) (Message, error) {
	if len(payload) == 0 {
		return nil, refuse(payload, "")
	}
	m := d.slot(Op(payload[0]))
	if m == nil {
		return nil, refuse(payload, "")
	}
	return m.decode(payload)
}

// DecodeInbound is the package's DecodeInbound, into the Decoder's storage.
func (d *Decoder) DecodeInbound(payload []byte) (Message, error) {
	if len(payload) == 0 || !Op(payload[0]).Inbound() {
		return nil, refuse(payload, "inbound")
	}
	return d.slot(Op(payload[0])).decode(payload)
}

// DecodeOutbound is the package's DecodeOutbound, into the Decoder's storage.
func (d *Decoder) DecodeOutbound(payload []byte) (Message, error) {
	if len(payload) == 0 || !Op(payload[0]).Outbound() {
		return nil, refuse(payload, "outbound")
	}
	return d.slot(Op(payload[0])).decode(payload)
}

// slot returns the Decoder's storage for op, or nil for an undefined opcode.
func (d *Decoder) slot(op Op) decodable {
	switch op {
	case OpWorldRegister:
		return &d.worldRegister
	case OpPlayerLogin:
		return &d.playerLogin
	case OpPlayerLogout:
		return &d.playerLogout
	case OpFriendAdd:
		return &d.friendAdd
	case OpFriendDel:
		return &d.friendDel
	case OpIgnoreAdd:
		return &d.ignoreAdd
	case OpIgnoreDel:
		return &d.ignoreDel
	case OpPrivateMessage:
		return &d.privateMessage
	case OpRequestLists:
		return &d.requestLists
	case OpChatModeUpdate:
		return &d.chatModeUpdate
	case OpPlayerSaveRequest:
		return &d.playerSaveRequest
	case OpPlayerLoadRequest:
		return &d.playerLoadRequest
	case OpPlayerResync:
		return &d.playerResync
	case OpLoginCheck:
		return &d.loginCheck
	case OpRefreshAll:
		return &d.refreshAll
	case OpUpdateFriendList:
		return &d.updateFriendList
	case OpUpdateIgnoreList:
		return &d.updateIgnoreList
	case OpMessagePrivate:
		return &d.messagePrivate
	case OpFriendListComplete:
		return &d.friendListComplete
	case OpPlayerLoadResponse:
		return &d.playerLoadResponse
	case OpPlayerSaveAck:
		return &d.playerSaveAck
	case OpLoginCheckResponse:
		return &d.loginCheckResponse
	}
	return nil
}

// newMessage returns a new zero message for op, or nil for an undefined opcode.
func newMessage(op Op) decodable {
	switch op {
	case OpWorldRegister:
		return new(WorldRegister)
	case OpPlayerLogin:
		return new(PlayerLogin)
	case OpPlayerLogout:
		return new(PlayerLogout)
	case OpFriendAdd:
		return new(FriendAdd)
	case OpFriendDel:
		return new(FriendDel)
	case OpIgnoreAdd:
		return new(IgnoreAdd)
	case OpIgnoreDel:
		return new(IgnoreDel)
	case OpPrivateMessage:
		return new(PrivateMessage)
	case OpRequestLists:
		return new(RequestLists)
	case OpChatModeUpdate:
		return new(ChatModeUpdate)
	case OpPlayerSaveRequest:
		return new(PlayerSaveRequest)
	case OpPlayerLoadRequest:
		return new(PlayerLoadRequest)
	case OpPlayerResync:
		return new(PlayerResync)
	case OpLoginCheck:
		return new(LoginCheck)
	case OpRefreshAll:
		return new(RefreshAll)
	case OpUpdateFriendList:
		return new(UpdateFriendList)
	case OpUpdateIgnoreList:
		return new(UpdateIgnoreList)
	case OpMessagePrivate:
		return new(MessagePrivate)
	case OpFriendListComplete:
		return new(FriendListComplete)
	case OpPlayerLoadResponse:
		return new(PlayerLoadResponse)
	case OpPlayerSaveAck:
		return new(PlayerSaveAck)
	case OpLoginCheckResponse:
		return new(LoginCheckResponse)
	}
	return nil
}
