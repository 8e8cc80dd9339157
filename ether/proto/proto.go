// Package proto is the binary frame codec between a world server (worldsrv)
// and its ether social sidecar: a u16 big-endian length, then a payload whose
// first byte is the opcode (DESIGN.md section 5, the seed's table byte for
// byte). It imports nothing of ours, so worldsrv and ether can both use it.
package proto

import "strconv"

// Op is a frame's opcode, the first byte of its payload. Inbound opcodes
// (world → ether) are 0–14; outbound opcodes (ether → world) are 128–134.
type Op uint8

// Inbound opcodes (world → ether).
const (
	OpWorldRegister     Op = 0
	OpPlayerLogin       Op = 1
	OpPlayerLogout      Op = 2
	OpFriendAdd         Op = 3
	OpFriendDel         Op = 4
	OpIgnoreAdd         Op = 5
	OpIgnoreDel         Op = 6
	OpPrivateMessage    Op = 7
	OpRequestLists      Op = 8
	OpChatModeUpdate    Op = 9
	OpPlayerSaveRequest Op = 10
	OpPlayerLoadRequest Op = 11
	OpPlayerResync      Op = 12
	OpLoginCheck        Op = 13
	OpRefreshAll        Op = 14
)

// Outbound opcodes (ether → world).
const (
	OpUpdateFriendList   Op = 128
	OpUpdateIgnoreList   Op = 129
	OpMessagePrivate     Op = 130
	OpFriendListComplete Op = 131
	OpPlayerLoadResponse Op = 132
	OpPlayerSaveAck      Op = 133
	OpLoginCheckResponse Op = 134
)

var inboundNames = [...]string{
	OpWorldRegister:     "WorldRegister",
	OpPlayerLogin:       "PlayerLogin",
	OpPlayerLogout:      "PlayerLogout",
	OpFriendAdd:         "FriendAdd",
	OpFriendDel:         "FriendDel",
	OpIgnoreAdd:         "IgnoreAdd",
	OpIgnoreDel:         "IgnoreDel",
	OpPrivateMessage:    "PrivateMessage",
	OpRequestLists:      "RequestLists",
	OpChatModeUpdate:    "ChatModeUpdate",
	OpPlayerSaveRequest: "PlayerSaveRequest",
	OpPlayerLoadRequest: "PlayerLoadRequest",
	OpPlayerResync:      "PlayerResync",
	OpLoginCheck:        "LoginCheck",
	OpRefreshAll:        "RefreshAll",
}

var outboundNames = [...]string{
	OpUpdateFriendList - OpUpdateFriendList:   "UpdateFriendList",
	OpUpdateIgnoreList - OpUpdateFriendList:   "UpdateIgnoreList",
	OpMessagePrivate - OpUpdateFriendList:     "MessagePrivate",
	OpFriendListComplete - OpUpdateFriendList: "FriendListComplete",
	OpPlayerLoadResponse - OpUpdateFriendList: "PlayerLoadResponse",
	OpPlayerSaveAck - OpUpdateFriendList:      "PlayerSaveAck",
	OpLoginCheckResponse - OpUpdateFriendList: "LoginCheckResponse",
}

// String returns the message name ("PlayerLogin"), or "Op(n)" for an
// opcode the table does not define.
func (o Op) String() string {
	switch {
	case o.Inbound():
		return inboundNames[o]
	case o.Outbound():
		return outboundNames[o-OpUpdateFriendList]
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// Inbound reports whether o is a defined world → ether opcode (0–14).
func (o Op) Inbound() bool { return o <= OpRefreshAll }

// Outbound reports whether o is a defined ether → world opcode (128–134).
func (o Op) Outbound() bool { return o >= OpUpdateFriendList && o <= OpLoginCheckResponse }

// Message is one frame's payload. Every message type in this package
// implements it with value receivers, so both T and *T are Messages;
// the decoders return pointers (*PlayerLogin etc.).
type Message interface {
	// Op returns the message's opcode.
	Op() Op
	// AppendPayload appends the payload (the opcode byte, then the
	// fields, big-endian) to dst and returns the extended slice.
	AppendPayload(dst []byte) []byte
}

const (
	// HeaderLen is the size of the frame header: the u16 payload length.
	HeaderLen = 2
	// MaxPayload is the largest payload a frame can carry (opcode included).
	MaxPayload = 65535
)
