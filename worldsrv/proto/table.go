package proto

import (
	"strconv"

	"github.com/corrosion/corrosion/internal/frame"
)

// The opcode tables, one per direction, indexed by the opcode itself. A
// row drives the opcode's String, the length check every decoder makes
// before a message's decode method runs, the message the package-level
// decoders allocate and the storage a Decoder decodes into. A row left
// zero is an undefined opcode.
//
// To add a message: pick the next opcode of its direction, name it in the
// Op constants (proto.go), write its struct with Op, AppendPayload and
// decode next to its direction's others, give Decoder a field for it, and
// add its row here. Nothing else changes.

// clientOps is the client → world table.
var clientOps = [256]opInfo[ClientMessage]{
	OpLogin:          row[ClientMessage]("Login", between(1+1+1, 1+1+MaxStr8+1+MaxStr8), func(d *Decoder) *Login { return &d.c.login }),
	OpLogout:         row[ClientMessage]("Logout", frame.Fixed(1), func(d *Decoder) *Logout { return &d.c.logout }),
	OpFriendAdd:      row[ClientMessage]("FriendAdd", between(1+1, 1+1+MaxStr8), func(d *Decoder) *FriendAdd { return &d.c.friendAdd }),
	OpFriendDel:      row[ClientMessage]("FriendDel", between(1+1, 1+1+MaxStr8), func(d *Decoder) *FriendDel { return &d.c.friendDel }),
	OpIgnoreAdd:      row[ClientMessage]("IgnoreAdd", between(1+1, 1+1+MaxStr8), func(d *Decoder) *IgnoreAdd { return &d.c.ignoreAdd }),
	OpIgnoreDel:      row[ClientMessage]("IgnoreDel", between(1+1, 1+1+MaxStr8), func(d *Decoder) *IgnoreDel { return &d.c.ignoreDel }),
	OpPrivateMessage: row[ClientMessage]("PrivateMessage", between(1+1+1, 1+1+MaxStr8+MaxText), func(d *Decoder) *PrivateMessage { return &d.c.privateMessage }),
	OpChatSettings:   row[ClientMessage]("ChatSettings", frame.Fixed(1+3), func(d *Decoder) *ChatSettings { return &d.c.chatSettings }),
	OpKeepalive:      row[ClientMessage]("Keepalive", frame.Fixed(1), func(d *Decoder) *Keepalive { return &d.c.keepalive }),
	OpWalk:           row[ClientMessage]("Walk", frame.Fixed(1+2+2), func(d *Decoder) *Walk { return &d.c.walk }),
}

// worldOps is the world → client table.
var worldOps = [256]opInfo[WorldMessage]{
	OpLoginResponse:    row[WorldMessage]("LoginResponse", between(1+1, 1+1+2+1), func(d *Decoder) *LoginResponse { return &d.w.loginResponse }),
	OpFriendStatus:     row[WorldMessage]("FriendStatus", frame.Fixed(1+8+1), func(d *Decoder) *FriendStatus { return &d.w.friendStatus }),
	OpIgnoreList:       row[WorldMessage]("IgnoreList", between(1+2, MaxPayload), func(d *Decoder) *IgnoreList { return &d.w.ignoreList }),
	OpPrivateMessageIn: row[WorldMessage]("PrivateMessageIn", between(1+8+4+1, MaxPayload), func(d *Decoder) *PrivateMessageIn { return &d.w.privateMessageIn }),
	OpFriendListLoaded: row[WorldMessage]("FriendListLoaded", frame.Fixed(1), func(d *Decoder) *FriendListLoaded { return &d.w.friendListLoaded }),
	OpChatSettingsNow:  row[WorldMessage]("ChatSettingsNow", frame.Fixed(1+3), func(d *Decoder) *ChatSettingsNow { return &d.w.chatSettingsNow }),
	OpSystemMessage:    row[WorldMessage]("SystemMessage", between(1, MaxPayload), func(d *Decoder) *SystemMessage { return &d.w.systemMessage }),
	OpLoggedOut:        row[WorldMessage]("LoggedOut", frame.Fixed(1+1), func(d *Decoder) *LoggedOut { return &d.w.loggedOut }),
	OpMapInfo:          row[WorldMessage]("MapInfo", frame.Fixed(1+8+1+2+2), func(d *Decoder) *MapInfo { return &d.w.mapInfo }),
	OpPosition:         row[WorldMessage]("Position", frame.Fixed(1+2+2), func(d *Decoder) *Position { return &d.w.position }),
	OpNearby:           row[WorldMessage]("Nearby", between(1+2, 1+2+nearbyEntry*MaxNearby), func(d *Decoder) *Nearby { return &d.w.nearby }),
}

// opInfo is one row of an opcode table; M is the direction's message type.
// Its frame.Row (the message's name, which is its Go type's name, and its
// payload length, opcode included) is what the errors and String read.
type opInfo[M Message] struct {
	frame.Row
	slot func(*Decoder) decodable[M] // the Decoder's storage for the message
	new  func() decodable[M]         // allocates a zero message of its type
}

// decodable is implemented by every message's pointer type: decode fills
// the message from a whole payload whose opcode and length the table has
// checked, and returns the receiver (or the zero M and an error naming the
// field). Returning the receiver spares the caller an interface conversion.
type decodable[M Message] interface {
	decode(payload []byte) (M, error)
}

// row builds the table row of message type T, whose pointer decodes into
// an M and which a Decoder keeps where slot says.
func row[M Message, T any, P interface {
	*T
	decodable[M]
}](name string, size frame.Size, slot func(*Decoder) P) opInfo[M] {
	return opInfo[M]{
		Row:  frame.Row{Name: name, Size: size},
		slot: func(d *Decoder) decodable[M] { return slot(d) },
		new:  func() decodable[M] { return P(new(T)) },
	}
}

// between is the size rule of a variable-size message: at least its fixed
// head, at most what its fields can hold (never more than MaxPayload).
func between(lo, hi int) frame.Size { return frame.Between(lo, min(hi, MaxPayload)) }

// String returns the message's name ("Walk"), or "ClientOp(n)" for an
// opcode the client table does not define.
func (o ClientOp) String() string {
	if name := clientOps[o].Name; name != "" {
		return name
	}
	return "ClientOp(" + strconv.Itoa(int(o)) + ")"
}

// Defined reports whether the client table defines o.
func (o ClientOp) Defined() bool { return clientOps[o].Name != "" }

// String returns the message's Go name ("LoggedOut"), or "WorldOp(n)" for
// an opcode the world table does not define.
func (o WorldOp) String() string {
	if name := worldOps[o].Name; name != "" {
		return name
	}
	return "WorldOp(" + strconv.Itoa(int(o)) + ")"
}

// Defined reports whether the world table defines o.
func (o WorldOp) Defined() bool { return worldOps[o].Name != "" }
