package proto

import "strconv"

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
	OpLogout:         row[ClientMessage]("Logout", fixed(1), func(d *Decoder) *Logout { return &d.c.logout }),
	OpFriendAdd:      row[ClientMessage]("FriendAdd", between(1+1, 1+1+MaxStr8), func(d *Decoder) *FriendAdd { return &d.c.friendAdd }),
	OpFriendDel:      row[ClientMessage]("FriendDel", between(1+1, 1+1+MaxStr8), func(d *Decoder) *FriendDel { return &d.c.friendDel }),
	OpIgnoreAdd:      row[ClientMessage]("IgnoreAdd", between(1+1, 1+1+MaxStr8), func(d *Decoder) *IgnoreAdd { return &d.c.ignoreAdd }),
	OpIgnoreDel:      row[ClientMessage]("IgnoreDel", between(1+1, 1+1+MaxStr8), func(d *Decoder) *IgnoreDel { return &d.c.ignoreDel }),
	OpPrivateMessage: row[ClientMessage]("PrivateMessage", between(1+1+1, 1+1+MaxStr8+MaxText), func(d *Decoder) *PrivateMessage { return &d.c.privateMessage }),
	OpChatSettings:   row[ClientMessage]("ChatSettings", fixed(1+3), func(d *Decoder) *ChatSettings { return &d.c.chatSettings }),
	OpKeepalive:      row[ClientMessage]("Keepalive", fixed(1), func(d *Decoder) *Keepalive { return &d.c.keepalive }),
	OpWalk:           row[ClientMessage]("Walk", fixed(1+2+2), func(d *Decoder) *Walk { return &d.c.walk }),
}

// worldOps is the world → client table.
var worldOps = [256]opInfo[WorldMessage]{
	OpLoginResponse:    row[WorldMessage]("LoginResponse", between(1+1, 1+1+2+1), func(d *Decoder) *LoginResponse { return &d.w.loginResponse }),
	OpFriendStatus:     row[WorldMessage]("FriendStatus", fixed(1+8+1), func(d *Decoder) *FriendStatus { return &d.w.friendStatus }),
	OpIgnoreList:       row[WorldMessage]("IgnoreList", between(1+2, MaxPayload), func(d *Decoder) *IgnoreList { return &d.w.ignoreList }),
	OpPrivateMessageIn: row[WorldMessage]("PrivateMessageIn", between(1+8+4+1, MaxPayload), func(d *Decoder) *PrivateMessageIn { return &d.w.privateMessageIn }),
	OpFriendListLoaded: row[WorldMessage]("FriendListLoaded", fixed(1), func(d *Decoder) *FriendListLoaded { return &d.w.friendListLoaded }),
	OpChatSettingsNow:  row[WorldMessage]("ChatSettingsNow", fixed(1+3), func(d *Decoder) *ChatSettingsNow { return &d.w.chatSettingsNow }),
	OpSystemMessage:    row[WorldMessage]("SystemMessage", between(1, MaxPayload), func(d *Decoder) *SystemMessage { return &d.w.systemMessage }),
	OpLoggedOut:        row[WorldMessage]("LoggedOut", fixed(1+1), func(d *Decoder) *LoggedOut { return &d.w.loggedOut }),
	OpMapInfo:          row[WorldMessage]("MapInfo", fixed(1+8+1+2+2), func(d *Decoder) *MapInfo { return &d.w.mapInfo }),
	OpPosition:         row[WorldMessage]("Position", fixed(1+2+2), func(d *Decoder) *Position { return &d.w.position }),
	OpNearby:           row[WorldMessage]("Nearby", between(1+2, 1+2+nearbyEntry*MaxNearby), func(d *Decoder) *Nearby { return &d.w.nearby }),
}

// opInfo is one row of an opcode table; M is the direction's message type.
type opInfo[M Message] struct {
	opMeta
	slot func(*Decoder) decodable[M] // the Decoder's storage for the message
	new  func() decodable[M]         // allocates a zero message of its type
}

// opMeta is what a row says about its opcode: what the errors and String use.
type opMeta struct {
	name string   // the message's name, which is its Go type's name
	size sizeRule // its payload length, opcode included
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
}](name string, size sizeRule, slot func(*Decoder) P) opInfo[M] {
	return opInfo[M]{
		opMeta: opMeta{name: name, size: size},
		slot:   func(d *Decoder) decodable[M] { return slot(d) },
		new:    func() decodable[M] { return P(new(T)) },
	}
}

// sizeRule is a message's payload length, opcode included: between min
// and max bytes. A fixed-size message has min = max. The zero rule fits
// no payload, which is what an undefined opcode's row needs.
type sizeRule struct{ min, max int }

// fixed is the size rule of a message of exactly n bytes.
func fixed(n int) sizeRule { return sizeRule{min: n, max: n} }

// between is the size rule of a variable-size message: at least its fixed
// head, at most what its fields can hold (never more than MaxPayload).
func between(lo, hi int) sizeRule { return sizeRule{min: lo, max: min(hi, MaxPayload)} }

// fits reports whether a payload of n bytes has the rule's length.
func (r sizeRule) fits(n int) bool { return n >= r.min && n <= r.max }

// variable reports whether the rule is that of a variable-size message.
func (r sizeRule) variable() bool { return r.max != r.min }

// String returns the message's name ("Walk"), or "ClientOp(n)" for an
// opcode the client table does not define.
func (o ClientOp) String() string {
	if name := clientOps[o].name; name != "" {
		return name
	}
	return "ClientOp(" + strconv.Itoa(int(o)) + ")"
}

// Defined reports whether the client table defines o.
func (o ClientOp) Defined() bool { return clientOps[o].name != "" }

// String returns the message's Go name ("LoggedOut"), or "WorldOp(n)" for
// an opcode the world table does not define.
func (o WorldOp) String() string {
	if name := worldOps[o].name; name != "" {
		return name
	}
	return "WorldOp(" + strconv.Itoa(int(o)) + ")"
}

// Defined reports whether the world table defines o.
func (o WorldOp) Defined() bool { return worldOps[o].name != "" }
