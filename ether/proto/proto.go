// Package proto is the binary frame codec between a world server (worldsrv)
// and its ether social sidecar: a u16 big-endian length, then a payload whose
// first byte is the opcode (docs/ether-protocol.md, the seed's table byte for
// byte). It imports nothing of ours but internal/frame (the framing it
// shares with worldsrv/proto), so worldsrv and ether can both use it.
//
// One opcode table drives the codec: ops (table.go) holds a row per defined
// opcode with its name, direction, size rule (exactly n bytes, or at least a
// fixed head followed by a variable field) and a constructor for its
// message. Op.String, Op.Inbound/Outbound, every decoder's opcode and
// length checks, the messages Decode allocates and the per-opcode storage
// of a Decoder all read that row. A message is a struct with three methods:
// Op, AppendPayload (encode) and decode (fill from a payload the table has
// already checked). Adding one is an Op constant, that struct, one table
// row, and its test vectors.
package proto

import "github.com/corrosion/corrosion/internal/frame"

// Op is a frame's opcode, the first byte of its payload. Inbound opcodes
// (world → ether) are 0–16 (15 and 16 are beyond the seed's table); outbound
// opcodes (ether → world) are 128–135 (135 is beyond it).
// The opcode table (table.go) says what each one means.
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
	OpLinkAuth          Op = 15 // beyond the seed's table: the world's link token
	OpLinkChallenge     Op = 16 // beyond the seed's table: the world asks its sidecar to prove it knows the token
	OpWorldInfo         Op = 17 // beyond the seed's table: who the world is and its client URL
	OpLoginRelease      Op = 18 // beyond the seed's table: a LoginCheck's lock given back
	OpFeatureQuery      Op = 19 // beyond the seed's table: which extensions the sidecar handles
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
	OpLinkProof          Op = 135 // beyond the seed's table: the answer to LinkChallenge
	OpFeatures           Op = 136 // beyond the seed's table: the answer to FeatureQuery
)

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
	HeaderLen = frame.HeaderLen
	// MaxPayload is the largest payload a frame can carry (opcode included):
	// all a u16 length can say.
	MaxPayload = frame.MaxPayload
)
