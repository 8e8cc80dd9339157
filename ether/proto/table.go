package proto

import (
	"strconv"

	"github.com/corrosion/corrosion/internal/frame"
)

// ops is the opcode table: one row per defined opcode, indexed by the
// opcode itself. It drives Op.String, Op.Inbound/Outbound, the length check
// of every decoder, the messages the package-level decoders allocate and
// the storage a Decoder keeps. A row left zero is an undefined opcode.
//
// To add a message: pick an unused opcode (20–127 inbound, 137–255
// outbound), name it in the Op constants, write its struct with Op,
// AppendPayload and decode methods next to its direction's others, and add
// its row here. Nothing else changes.
var ops = [256]opInfo{
	// Inbound: world → ether.
	OpWorldRegister:     row[WorldRegister]("WorldRegister", toEther, frame.Fixed(1+1)),
	OpPlayerLogin:       row[PlayerLogin]("PlayerLogin", toEther, frame.Fixed(1+8+2)),
	OpPlayerLogout:      row[PlayerLogout]("PlayerLogout", toEther, frame.Fixed(1+8)),
	OpFriendAdd:         row[FriendAdd]("FriendAdd", toEther, frame.Fixed(1+8+8)),
	OpFriendDel:         row[FriendDel]("FriendDel", toEther, frame.Fixed(1+8+8)),
	OpIgnoreAdd:         row[IgnoreAdd]("IgnoreAdd", toEther, frame.Fixed(1+8+8)),
	OpIgnoreDel:         row[IgnoreDel]("IgnoreDel", toEther, frame.Fixed(1+8+8)),
	OpPrivateMessage:    row[PrivateMessage]("PrivateMessage", toEther, frame.AtLeast(1+8+8+1)),
	OpRequestLists:      row[RequestLists]("RequestLists", toEther, frame.Fixed(1+8)),
	OpChatModeUpdate:    row[ChatModeUpdate]("ChatModeUpdate", toEther, frame.Fixed(1+8+1)),
	OpPlayerSaveRequest: row[PlayerSaveRequest]("PlayerSaveRequest", toEther, frame.AtLeast(1+8)),
	OpPlayerLoadRequest: row[PlayerLoadRequest]("PlayerLoadRequest", toEther, frame.Fixed(1+8)),
	OpPlayerResync:      row[PlayerResync]("PlayerResync", toEther, frame.Fixed(1+8+2+1)),
	OpLoginCheck:        row[LoginCheck]("LoginCheck", toEther, frame.Fixed(1+8)),
	OpRefreshAll:        row[RefreshAll]("RefreshAll", toEther, frame.Fixed(1)),
	OpLinkAuth:          row[LinkAuth]("LinkAuth", toEther, frame.AtLeast(1)),
	OpLinkChallenge:     row[LinkChallenge]("LinkChallenge", toEther, frame.Fixed(1+NonceLen)),
	OpWorldInfo:         row[WorldInfo]("WorldInfo", toEther, frame.AtLeast(1+1+1)),
	OpLoginRelease:      row[LoginRelease]("LoginRelease", toEther, frame.Fixed(1+8)),
	OpFeatureQuery:      row[FeatureQuery]("FeatureQuery", toEther, frame.Fixed(1)),

	// Outbound: ether → world.
	OpUpdateFriendList:   row[UpdateFriendList]("UpdateFriendList", toWorld, frame.Fixed(1+8+8+1)),
	OpUpdateIgnoreList:   row[UpdateIgnoreList]("UpdateIgnoreList", toWorld, frame.AtLeast(1+8+2)),
	OpMessagePrivate:     row[MessagePrivate]("MessagePrivate", toWorld, frame.AtLeast(1+8+8+4+1)),
	OpFriendListComplete: row[FriendListComplete]("FriendListComplete", toWorld, frame.Fixed(1+8)),
	OpPlayerLoadResponse: row[PlayerLoadResponse]("PlayerLoadResponse", toWorld, frame.AtLeast(1+8)),
	OpPlayerSaveAck:      row[PlayerSaveAck]("PlayerSaveAck", toWorld, frame.Fixed(1+8+1)),
	OpLoginCheckResponse: row[LoginCheckResponse]("LoginCheckResponse", toWorld, frame.Fixed(1+8+1)),
	OpLinkProof:          row[LinkProof]("LinkProof", toWorld, frame.Fixed(1+NonceLen)),
	OpFeatures:           row[Features]("Features", toWorld, frame.Fixed(1+4)),
}

// opInfo is one row of the opcode table: its name and size rule (what the
// errors and the length check read), and what this codec adds.
type opInfo struct {
	frame.Row
	dir   direction               // the way it travels; 0 for an undefined opcode
	new   func() decodable        // allocates a zero message of its type
	value func(decodable) Message // the message a pointer of its type points to, as a value
}

// row builds the table row of message type T, whose pointer decodes.
func row[T any, P interface {
	*T
	decodable
}](name string, dir direction, size frame.Size) opInfo {
	return opInfo{Row: frame.Row{Name: name, Size: size}, dir: dir,
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

// String returns the message name ("PlayerLogin"), or "Op(n)" for an
// opcode the table does not define.
func (o Op) String() string {
	if name := ops[o].Name; name != "" {
		return name
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// Inbound reports whether o is a defined world → ether opcode.
func (o Op) Inbound() bool { return ops[o].dir == toEther }

// Outbound reports whether o is a defined ether → world opcode.
func (o Op) Outbound() bool { return ops[o].dir == toWorld }
