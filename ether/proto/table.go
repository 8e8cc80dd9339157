package proto

import (
	"math"
	"strconv"
)

// ops is the opcode table: one row per defined opcode, indexed by the
// opcode itself. It drives Op.String, Op.Inbound/Outbound, the length check
// of every decoder, the messages the package-level decoders allocate and
// the storage a Decoder keeps. A row left zero is an undefined opcode.
//
// To add a message: pick an unused opcode (18–127 inbound, 136–255
// outbound), name it in the Op constants, write its struct with Op,
// AppendPayload and decode methods next to its direction's others, and add
// its row here. Nothing else changes.
var ops = [256]opInfo{
	// Inbound: world → ether.
	OpWorldRegister:     row[WorldRegister]("WorldRegister", toEther, fixed(1+1)),
	OpPlayerLogin:       row[PlayerLogin]("PlayerLogin", toEther, fixed(1+8+2)),
	OpPlayerLogout:      row[PlayerLogout]("PlayerLogout", toEther, fixed(1+8)),
	OpFriendAdd:         row[FriendAdd]("FriendAdd", toEther, fixed(1+8+8)),
	OpFriendDel:         row[FriendDel]("FriendDel", toEther, fixed(1+8+8)),
	OpIgnoreAdd:         row[IgnoreAdd]("IgnoreAdd", toEther, fixed(1+8+8)),
	OpIgnoreDel:         row[IgnoreDel]("IgnoreDel", toEther, fixed(1+8+8)),
	OpPrivateMessage:    row[PrivateMessage]("PrivateMessage", toEther, atLeast(1+8+8+1)),
	OpRequestLists:      row[RequestLists]("RequestLists", toEther, fixed(1+8)),
	OpChatModeUpdate:    row[ChatModeUpdate]("ChatModeUpdate", toEther, fixed(1+8+1)),
	OpPlayerSaveRequest: row[PlayerSaveRequest]("PlayerSaveRequest", toEther, atLeast(1+8)),
	OpPlayerLoadRequest: row[PlayerLoadRequest]("PlayerLoadRequest", toEther, fixed(1+8)),
	OpPlayerResync:      row[PlayerResync]("PlayerResync", toEther, fixed(1+8+2+1)),
	OpLoginCheck:        row[LoginCheck]("LoginCheck", toEther, fixed(1+8)),
	OpRefreshAll:        row[RefreshAll]("RefreshAll", toEther, fixed(1)),
	OpLinkAuth:          row[LinkAuth]("LinkAuth", toEther, atLeast(1)),
	OpLinkChallenge:     row[LinkChallenge]("LinkChallenge", toEther, fixed(1+NonceLen)),
	OpWorldInfo:         row[WorldInfo]("WorldInfo", toEther, atLeast(1+1+1)),

	// Outbound: ether → world.
	OpUpdateFriendList:   row[UpdateFriendList]("UpdateFriendList", toWorld, fixed(1+8+8+1)),
	OpUpdateIgnoreList:   row[UpdateIgnoreList]("UpdateIgnoreList", toWorld, atLeast(1+8+2)),
	OpMessagePrivate:     row[MessagePrivate]("MessagePrivate", toWorld, atLeast(1+8+8+4+1)),
	OpFriendListComplete: row[FriendListComplete]("FriendListComplete", toWorld, fixed(1+8)),
	OpPlayerLoadResponse: row[PlayerLoadResponse]("PlayerLoadResponse", toWorld, atLeast(1+8)),
	OpPlayerSaveAck:      row[PlayerSaveAck]("PlayerSaveAck", toWorld, fixed(1+8+1)),
	OpLoginCheckResponse: row[LoginCheckResponse]("LoginCheckResponse", toWorld, fixed(1+8+1)),
	OpLinkProof:          row[LinkProof]("LinkProof", toWorld, fixed(1+NonceLen)),
}

// opInfo is one row of the opcode table.
type opInfo struct {
	name  string                  // the message's name, which is its type's name
	dir   direction               // the way it travels; 0 for an undefined opcode
	size  sizeRule                // its payload length, opcode included
	new   func() decodable        // allocates a zero message of its type
	value func(decodable) Message // the message a pointer of its type points to, as a value
}

// row builds the table row of message type T, whose pointer decodes.
func row[T any, P interface {
	*T
	decodable
}](name string, dir direction, size sizeRule) opInfo {
	return opInfo{name: name, dir: dir, size: size,
		new:   func() decodable { return P(new(T)) },
		value: func(m decodable) Message { return any(*m.(P)).(Message) },
	}
}

// direction is the way a message travels, as a bit set so that a decoder
// can accept either.
type direction uint8

const (
	toEther direction = 1 << iota // inbound: world → ether
	toWorld                       // outbound: ether → world
)

// eitherWay is what the direction-free decoders accept.
const eitherWay = toEther | toWorld

// String names the direction as the errors do: "inbound", "outbound", or
// "" for either.
func (d direction) String() string {
	switch d {
	case toEther:
		return "inbound"
	case toWorld:
		return "outbound"
	}
	return ""
}

// sizeRule is a message's payload length, opcode included: between min
// and max bytes. A fixed-size message has min = max; one that ends in a
// variable field (the rest of the frame) has its fixed head as min and no
// bound above (a frame cannot carry more than MaxPayload, but a payload
// handed to a decoder may be longer).
type sizeRule struct{ min, max int }

// fixed is the size rule of a message of exactly n bytes.
func fixed(n int) sizeRule { return sizeRule{min: n, max: n} }

// atLeast is the size rule of a message whose fixed head of n bytes is
// followed by a variable field.
func atLeast(n int) sizeRule { return sizeRule{min: n, max: math.MaxInt} }

// fits reports whether a payload of n bytes has the rule's length.
func (r sizeRule) fits(n int) bool { return n >= r.min && n <= r.max }

// variable reports whether the rule is that of a variable-size message.
func (r sizeRule) variable() bool { return r.max != r.min }

// String returns the message name ("PlayerLogin"), or "Op(n)" for an
// opcode the table does not define.
func (o Op) String() string {
	if name := ops[o].name; name != "" {
		return name
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// Inbound reports whether o is a defined world → ether opcode.
func (o Op) Inbound() bool { return ops[o].dir == toEther }

// Outbound reports whether o is a defined ether → world opcode.
func (o Op) Outbound() bool { return ops[o].dir == toWorld }
